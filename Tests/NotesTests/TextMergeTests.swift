import Foundation
@testable import Notes
import Testing

@Suite struct TextMergeTests {
    let base = "milk\neggs\nbread\nbutter"
    let heather = Author(name: "heather", device: "laptop", at: Date(timeIntervalSince1970: 1_795_000_000))
    let jermaine = Author(name: "jermaine", device: "desk", at: Date(timeIntervalSince1970: 1_795_000_300))

    func merge(_ base: String?, mine: String, theirs: String) -> TextMerge.Result {
        TextMerge.merge(base: base, mine: mine, theirs: theirs, mineBy: jermaine, theirsBy: heather)
    }

    @Test func editsOfDifferentLinesBothSurvive() {
        let result = merge(base, mine: "milk\neggs (a dozen)\nbread\nbutter", theirs: "milk\neggs\nbread\nbutter\ncheese")
        #expect(result == .init(text: "milk\neggs (a dozen)\nbread\nbutter\ncheese", conflicted: false))
    }

    @Test func anOverlappingEditKeepsBothTextsUnderTheirAuthorsNames() {
        let result = merge(base, mine: "milk\noat milk\nbread\nbutter", theirs: "milk\nno eggs\nbread\nbutter")
        #expect(result.conflicted)
        #expect(result.text == """
            milk
            <<<<<<< heather on laptop, 2026-11-18 11:06 UTC
            no eggs
            ======= jermaine on desk, 2026-11-18 11:11 UTC
            oat milk
            >>>>>>> end of conflict
            bread
            butter
            """)
    }

    @Test func twoPeopleAppendingBothKeepTheirLinesWithoutAConflict() {
        let result = merge("A\nB\nC", mine: "A\nB\nC\nline D (jermaine)", theirs: "A\nB\nC\nline D (heather)")
        #expect(result == .init(text: "A\nB\nC\nline D (heather)\nline D (jermaine)", conflicted: false))
    }

    @Test func editsOfAdjacentLinesMergeLineByLine() {
        let result = merge("one\ntwo\nthree\nfour", mine: "one!\ntwo\nthree\nfour!", theirs: "one\ntwo!\nthree!\nfour")
        #expect(result == .init(text: "one!\ntwo!\nthree!\nfour!", conflicted: false))
        let clash = merge("one\ntwo", mine: "one (mine)\ntwo (mine)", theirs: "one (theirs)\ntwo")
        #expect(clash.text == "<<<<<<< heather on laptop, 2026-11-18 11:06 UTC\none (theirs)\n======= jermaine on desk, 2026-11-18 11:11 UTC\n"
            + "one (mine)\n>>>>>>> end of conflict\ntwo (mine)")
    }

    @Test func blocksNobodyResolvedMoveThroughAMergeWhole() {
        // Two devices each hold a different unresolved conflict, and merge again: every block still reads back.
        let base = "a\nb\nc\nd"
        let left = merge(base, mine: "a\nb1\nc\nd", theirs: "a\nb2\nc\nd").text
        let right = merge(base, mine: "a\nb\nc\nd3", theirs: "a\nb\nc\nd4").text
        let merged = merge(base, mine: left, theirs: right)
        let leftBlock = TextMerge.lines(left)[1...5].joined(separator: "\n"), rightBlock = TextMerge.lines(right)[3...7].joined(separator: "\n")
        #expect(merged == .init(text: "a\n\(leftBlock)\nc\n\(rightBlock)", conflicted: false))
        #expect(ConflictBlock.find(in: merged.text).count == 2)
        // And where both replaced one block differently, the new block holds both replacements.
        let clash = merge(left, mine: "a\nmine\nc\nd", theirs: right.replacingOccurrences(of: "\nb\n", with: "\ntheirs\n"))
        let outer = ConflictBlock.find(in: clash.text)
        #expect(clash.conflicted && outer.count == 2)
        #expect(outer.first?.sides.map(\.text) == ["theirs", "mine"])
    }

    /// heather's two devices each edit the unresolved block between them (as a careless person does, again and
    /// again): the block stays one, flat, with each device's newest text once.
    @Test func editsOfAnUnresolvedBlockNeverNestBlocks() {
        let laptop = Author(name: "heather", device: "laptop", at: Date(timeIntervalSince1970: 1_795_000_000))
        let desk = Author(name: "heather", device: "desk", at: Date(timeIntervalSince1970: 1_795_000_060))
        func block(_ sides: [(Author, String)]) -> String {
            (["one"] + ConflictBlock.lines(sides.map { ($0.0, [Substring($0.1)]) }) + ["three"]).joined(separator: "\n")
        }
        func sides(_ text: String) -> [String] { ConflictBlock.find(in: text).flatMap { $0.sides.map(\.text) } }
        var base = block([(laptop, "two A0"), (desk, "two B0")])
        for round in 1...4 {
            // Each device rewrote both sides of the block it holds with its own line.
            let onLaptop = block([(laptop, "two A\(round)"), (desk, "two A\(round)")])
            let onDesk = block([(laptop, "two B\(round)"), (desk, "two B\(round)")])
            let merged = TextMerge.merge(base: base, mine: onDesk, theirs: onLaptop, mineBy: desk, theirsBy: laptop)
            #expect(merged.conflicted)
            #expect(ConflictBlock.find(in: merged.text).count == 1 && sides(merged.text) == ["two A\(round)", "two B\(round)"], "\(merged.text)")
            #expect(TextMerge.lines(merged.text).filter { $0.hasPrefix("<<<<<<<") }.count == 1, "nested:\n\(merged.text)")
            base = merged.text
        }
        // Each fixed their own side: the block merges side by side.
        let start = block([(laptop, "two A"), (desk, "two B")])
        let ownSides = TextMerge.merge(base: start, mine: block([(laptop, "two A"), (desk, "two B, fixed")]),
                                       theirs: block([(laptop, "two A, fixed"), (desk, "two B")]), mineBy: desk, theirsBy: laptop)
        #expect(sides(ownSides.text) == ["two A, fixed", "two B, fixed"] && ownSides.conflicted)
        #expect(ConflictBlock.find(in: ownSides.text).first?.sides.map(\.author.device) == ["laptop", "desk"])
        // Both changed one side differently: three texts, flat, the unchanged side under its author.
        let sameSide = TextMerge.merge(base: start, mine: block([(laptop, "two A (desk)"), (desk, "two B")]),
                                       theirs: block([(laptop, "two A (laptop)"), (desk, "two B")]), mineBy: desk, theirsBy: laptop)
        #expect(sides(sameSide.text) == ["two A (laptop)", "two B", "two A (desk)"])
        #expect(ConflictBlock.find(in: sameSide.text).first?.sides.map(\.author.device) == ["laptop", "desk", "desk"])
        // Both made the block's sides agree: nothing is left to resolve.
        let agreed = TextMerge.merge(base: start, mine: block([(laptop, "two"), (desk, "two")]),
                                     theirs: block([(laptop, "two"), (desk, "two B")]), mineBy: desk, theirsBy: laptop)
        #expect(agreed == .init(text: "one\ntwo\nthree", conflicted: false))
    }

    /// Careless editing, round after round: each device edits its own side of the block nobody resolved and the
    /// line after it too. The lines around the block never enter its sides: the block stays two sides, each
    /// under the device that typed it, and the line after it conflicts in a block of its own beside it.
    @Test func linesEditedAroundAnUnresolvedBlockStayOutOfItsSides() {
        func author(_ device: String, _ round: Int) -> Author {
            Author(name: "heather", device: device, at: Date(timeIntervalSince1970: 1_795_000_000 + Double(round * 60)))
        }
        /// The text as `device` leaves it in `round`: its own side of each block, and the plain line after the
        /// first block, rewritten.
        func edited(_ text: String, by device: String, round: Int) -> String {
            var lines = TextMerge.lines(text)
            let blocks = ConflictBlock.find(in: text)
            if let first = blocks.first, first.range.upperBound < lines.count, !lines[first.range.upperBound].hasPrefix("<<<<<<<") {
                lines[first.range.upperBound] = "three (\(device) \(round))"
            }
            for block in ConflictBlock.find(in: lines.joined(separator: "\n")).reversed() {
                // Typed between the markers: the labels stay as they were.
                let sides = block.sides.map { side in
                    (side.author, side.author.device == device ? [Substring("\(device) \(round)")] : side.lines)
                }
                lines.replaceSubrange(block.range, with: ConflictBlock.lines(sides))
            }
            return lines.joined(separator: "\n")
        }
        var base = (["one"] + ConflictBlock.lines([(author("laptop", 0), ["laptop 0"]), (author("desk", 0), ["desk 0"])]) + ["three"])
            .joined(separator: "\n")
        for round in 1...5 {
            let merged = TextMerge.merge(base: base, mine: edited(base, by: "desk", round: round), theirs: edited(base, by: "laptop", round: round),
                                         mineBy: author("desk", round), theirsBy: author("laptop", round))
            let blocks = ConflictBlock.find(in: merged.text)
            #expect(blocks.count <= 2 && blocks.allSatisfy { $0.sides.count == 2 }, "round \(round):\n\(merged.text)")
            #expect(blocks.first?.sides.map(\.text) == ["laptop \(round)", "desk \(round)"], "round \(round):\n\(merged.text)")
            for block in blocks {
                #expect(block.sides.allSatisfy { $0.text.contains($0.author.device!) }, "a side under the wrong device:\n\(merged.text)")
            }
            base = merged.text
        }
        // Keeping mine on the desk keeps what the desk typed last, in every block.
        let mine = try? ConflictResolution.resolve(PostFields(title: "t", content: base, tags: [], location: nil), keeping: .mine, as: author("desk", 9))
        #expect(mine?.content == "one\ndesk 5\ndesk 5", "\(mine?.content ?? "refused")")
        let theirs = try? ConflictResolution.resolve(PostFields(title: "t", content: base, tags: [], location: nil), keeping: .theirs, as: author("desk", 9))
        #expect(theirs?.content == "one\nlaptop 5\nlaptop 5", "\(theirs?.content ?? "refused")")
    }

    /// The same, where each device adds a line after the block instead of changing one: both lines stay, after
    /// the block, which keeps its two sides under the right devices.
    @Test func linesAddedAroundAnUnresolvedBlockStayOutOfItsSides() {
        let laptop = Author(name: "heather", device: "laptop", at: Date(timeIntervalSince1970: 1_795_000_000))
        let desk = Author(name: "heather", device: "desk", at: Date(timeIntervalSince1970: 1_795_000_060))
        func text(_ a: String, _ b: String, after: [Substring]) -> String {
            (ConflictBlock.lines([(laptop, [Substring(a)]), (desk, [Substring(b)])]) + after).joined(separator: "\n")
        }
        var base = text("LAPTOP 0", "PHONE 0", after: [])
        var after: [Substring] = []
        for round in 1...4 {
            let onLaptop = text("LAPTOP \(round)", "PHONE \(round - 1)", after: after + ["L-added \(round)"])
            let onDesk = text("LAPTOP \(round - 1)", "PHONE \(round)", after: after + ["P-added \(round)"])
            let merged = TextMerge.merge(base: base, mine: onDesk, theirs: onLaptop, mineBy: desk, theirsBy: laptop)
            after += ["L-added \(round)", "P-added \(round)"]
            let blocks = ConflictBlock.find(in: merged.text)
            #expect(merged.conflicted && blocks.count == 1, "round \(round):\n\(merged.text)")
            #expect(blocks.first?.sides.map(\.text) == ["LAPTOP \(round)", "PHONE \(round)"], "round \(round):\n\(merged.text)")
            #expect(blocks.first?.sides.map(\.author.device) == ["laptop", "desk"])
            #expect(Array(TextMerge.lines(merged.text).suffix(after.count)) == after, "round \(round):\n\(merged.text)")
            base = merged.text
        }
    }

    /// Several sides from one device (a flat block from before): keeping mine keeps the newest, not the last shown.
    @Test func keepingMineKeepsThisDevicesNewestSide() throws {
        let at = { (minute: Double) in Date(timeIntervalSince1970: 1_795_000_000 + minute * 60) }
        let desk = { (minute: Double) in Author(name: "heather", device: "desk", at: at(minute)) }
        let laptop = Author(name: "heather", device: "laptop", at: at(1))
        let text = ConflictBlock.lines([(desk(3), ["newest"]), (laptop, ["other"]), (desk(2), ["older"])]).joined(separator: "\n")
        let fields = PostFields(title: "t", content: text, tags: [], location: nil)
        #expect(try ConflictResolution.resolve(fields, keeping: .mine, as: desk(9)).content == "newest")
        #expect(try ConflictResolution.resolve(fields, keeping: .theirs, as: desk(9)).content == "other")
    }

    @Test func theSameEditOnBothSidesIsTakenOnce() {
        let edited = "milk\neggs\nrye bread\nbutter"
        #expect(merge(base, mine: edited, theirs: edited) == .init(text: edited, conflicted: false))
    }

    @Test func oneSidedChangesWin() {
        #expect(merge(base, mine: base, theirs: "x").text == "x")
        #expect(merge(base, mine: "y", theirs: base).text == "y")
        #expect(merge("", mine: "", theirs: "new").text == "new")
    }

    @Test func deletionsAndInsertionsInDifferentPlacesBothApply() {
        let result = merge(base, mine: "milk\nbread\nbutter", theirs: "coffee\nmilk\neggs\nbread\nbutter")
        #expect(result == .init(text: "coffee\nmilk\nbread\nbutter", conflicted: false))
    }

    @Test func withoutABaseWhatEitherSideHoldsIsKept() {
        // A lost response, a rebuilt cloud: nothing tells which side changed what.
        #expect(merge(nil, mine: "A\nB\nC", theirs: "A\nC").text == "A\nB\nC")
        #expect(merge(nil, mine: "A", theirs: "").text == "A")
        let both = merge(nil, mine: "A\nmine\nC", theirs: "A\ntheirs\nC")
        #expect(both.conflicted)
        #expect(both.text.contains("mine") && both.text.contains("theirs"))
    }

    @Test func noWordOfEitherSideIsLostWhateverTheEdits() {
        // Every line either side typed (that was not in the base) is in the merge, whatever the other did.
        let texts = ["milk\nmy line\nbread", "", "a\nb\nc\nd\ne", "milk\neggs\nbread\nbutter\nmine", "completely\ndifferent", "butter",
                     "milk\n<<<<<<< x\nold\n======= y\nolder\n>>>>>>> end of conflict",
                     "milk\n<<<<<<< x, 2026-11-18 11:06 UTC\nold\n======= y, 2026-11-18 11:07 UTC\nolder\n>>>>>>> end of conflict",
                     "milk\n<<<<<<< x, 2026-11-18 11:06 UTC\nnew\n======= y, 2026-11-18 11:07 UTC\nolder\n>>>>>>> end of conflict",
                     "milk\n<<<<<<< x, 2026-11-18 11:06 UTC\nold\n======= y, 2026-11-18 11:07 UTC\nolder\n>>>>>>> end of conflict [typed]",
                     "milk\n<<<<<<< x, 2026-11-18 11:06 UTC\nold\n======= y, 2026-11-18 11:07 UTC [typed too]\nolder\n>>>>>>> end of conflict",
                     "milk\n<<<<<<< x, 2026-11-18 11:06 UTC\nold\n======= y, 2026-11-18 11:07 UTC\nnewer\nlines\n>>>>>>> end of conflict\nbread"]
        for base in [base, nil, texts.last] {
            for mine in texts {
                for theirs in texts {
                    // What people typed: a block's marker lines may be laid out anew (its sides flat in a new block),
                    // but not one someone typed on.
                    func written(_ line: Substring) -> Bool {
                        guard let marker = ["<<<<<<< ", "======= "].first(where: line.hasPrefix) else { return line == ConflictBlock.closeLine }
                        let label = String(line.dropFirst(marker.count)), author = Author(label: label)
                        return author.at != nil && author.label == label
                    }
                    func words(_ text: String) -> [Substring] { TextMerge.lines(text).filter { !written($0) } }
                    let merged = words(merge(base, mine: mine, theirs: theirs).text)
                    for line in words(mine) + words(theirs) where !(base.map(words) ?? []).contains(line) {
                        #expect(merged.contains(line), "lost \(line) merging \(mine.debugDescription) with \(theirs.debugDescription)")
                    }
                }
            }
        }
    }
}
