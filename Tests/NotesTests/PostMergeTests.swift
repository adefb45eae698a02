import Foundation
import Notes
import Testing

@Suite struct PostMergeTests {
    let base = PostFields(title: "Groceries", content: "milk\neggs", tags: ["home"], location: "Hanoi")
    let heather = Author(name: "heather", device: "laptop")
    let jermaine = Author(name: "jermaine", device: "desk")

    func merge(_ mine: PostFields, _ theirs: PostFields, base: PostFields? = nil) -> PostMerge.Result {
        PostMerge.merge(base: base ?? self.base, mine: .init(mine, by: jermaine), theirs: .init(theirs, by: heather))
    }

    @Test func differentFieldsBothSurvive() {
        var mine = base, theirs = base
        mine.title = "Groceries for Sunday"
        mine.location = "Saigon"
        theirs.content = "milk\neggs\nbread"
        let result = merge(mine, theirs)
        #expect(result.fields == PostFields(title: "Groceries for Sunday", content: "milk\neggs\nbread", tags: ["home"], location: "Saigon"))
        #expect(!result.conflicted)
    }

    @Test func aTitleEditedOnBothSidesKeepsBothInABlockAboutTheTitle() {
        var mine = base, theirs = base
        mine.title = "Mine"
        theirs.title = "Theirs"
        let result = merge(mine, theirs)
        #expect(result.fields.title == "Theirs")
        #expect(result.fields.content == "milk\neggs\n<<<<<<< title: heather on laptop\nTheirs\n======= title: jermaine on desk\nMine\n>>>>>>> end of conflict")
        #expect(result.conflicted)
        #expect(ConflictBlock.find(in: result.fields).map(\.field) == [.title])
    }

    @Test func aLocationEditedOnBothSidesStaysInTheLocationWhichTravelsSealed() {
        var mine = base, theirs = base
        mine.location = "Saigon"
        theirs.location = "Da Nang"
        let result = merge(mine, theirs)
        #expect(result.conflicted)
        #expect(!result.fields.content.contains("Saigon"), "the location must not reach the text, which travels in plain text")
        #expect(result.fields.location?.contains("Saigon") == true && result.fields.location?.contains("Da Nang") == true)
        #expect(ConflictBlock.find(in: result.fields).map(\.field) == [.location])
    }

    @Test func aLocationInConflictEditedOnBothSidesAgainStaysOneFlatBlock() {
        // Labels as the app writes them, with their time (a block without is never written anew).
        let laptop = Author(name: "heather", device: "laptop", at: Date(timeIntervalSince1970: 1_795_000_000))
        let desk = Author(name: "jermaine", device: "desk", at: Date(timeIntervalSince1970: 1_795_000_300))
        func merge(_ mine: PostFields, _ theirs: PostFields, base: PostFields) -> PostMerge.Result {
            PostMerge.merge(base: base, mine: .init(mine, by: desk), theirs: .init(theirs, by: laptop))
        }
        var mine = base, theirs = base
        mine.location = "Saigon"
        theirs.location = "Da Nang"
        let first = merge(mine, theirs, base: base).fields
        // Each side typed a new location over the block, and again.
        (mine, theirs) = (first, first)
        mine.location = "Hue"
        theirs.location = first.location! + "\nHoi An"
        let again = merge(mine, theirs, base: first)
        let blocks = ConflictBlock.find(in: again.fields)
        #expect(again.conflicted && blocks.map(\.field) == [.location])
        #expect(blocks.first?.sides.map(\.text) == ["Da Nang\nHoi An", "Saigon\nHoi An", "Hue"], "\(again.fields.location ?? "")")
        #expect(again.fields.location?.components(separatedBy: "<<<<<<<").count == 2, "one block, not one in another")
    }

    @Test func tagsMergeAsSets() {
        let result = merge(PostFields(title: "Groceries", content: "milk\neggs", tags: ["home", "urgent"], location: "Hanoi"),
                           PostFields(title: "Groceries", content: "milk\neggs", tags: ["food"], location: "Hanoi"))
        #expect(result.fields.tags == ["food", "urgent"])
    }

    @Test func overlappingContentIsKeptVisiblyAndFlagged() {
        var mine = base, theirs = base
        mine.content = "milk\nduck eggs"
        theirs.content = "milk\nno eggs"
        let result = merge(mine, theirs)
        #expect(result.conflicted)
        #expect(result.fields.content.contains("duck eggs") && result.fields.content.contains("no eggs"))
        #expect(ConflictBlock.isConflicted(result.fields))
    }

    @Test func anUnknownBaseKeepsEverythingBothSidesHold() {
        let mine = PostFields(title: "A", content: "one\ntwo", tags: ["x"], location: nil)
        let theirs = PostFields(title: "A", content: "one\nthree", tags: ["y"], location: "Hue")
        let result = PostMerge.merge(base: nil, mine: .init(mine, by: jermaine), theirs: .init(theirs, by: heather))
        #expect(result.fields.tags == ["y", "x"])
        #expect(result.fields.content.contains("two") && result.fields.content.contains("three"))
        #expect(result.fields.location?.contains("Hue") == true)
    }
}
