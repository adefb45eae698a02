import Foundation
import Notes
import Testing

@Suite struct ConflictResolutionTests {
    let heather = Author(name: "heather", device: "laptop", at: Date(timeIntervalSince1970: 1_795_000_000))
    let jermaine = Author(name: "jermaine", device: "desk", at: Date(timeIntervalSince1970: 1_795_000_300))
    let base = PostFields(title: "Meeting", content: "A\nB\nC", tags: [], location: "Hanoi")

    /// heather saved first; jermaine's edit overlapped hers in the text, the title and the location.
    var conflicted: PostFields {
        let theirs = PostFields(title: "Meeting (heather)", content: "A\nB by heather\nC", tags: [], location: "Hue")
        let mine = PostFields(title: "Meeting (jermaine)", content: "A\nB by jermaine\nC", tags: [], location: "Saigon")
        return PostMerge.merge(base: base, mine: .init(mine, by: jermaine), theirs: .init(theirs, by: heather)).fields
    }

    @Test func theBlocksNameEachSidesAuthorDeviceAndTime() {
        let found = ConflictBlock.find(in: conflicted)
        #expect(found.map(\.field) == [.content, .title, .location])
        #expect(found[0].sides.map(\.author) == [heather.rounded, jermaine.rounded])
        #expect(found[0].sides.map(\.text) == ["B by heather", "B by jermaine"])
    }

    @Test func keepingMineTakesTheResolversSideOfEveryField() throws {
        let resolved = try ConflictResolution.resolve(conflicted, keeping: .mine, as: Author(name: "jermaine", device: "desk"))
        #expect(resolved == PostFields(title: "Meeting (jermaine)", content: "A\nB by jermaine\nC", tags: [], location: "Saigon"))
        #expect(!ConflictBlock.isConflicted(resolved))
    }

    @Test func keepingTheirsTakesTheOtherSide() throws {
        let resolved = try ConflictResolution.resolve(conflicted, keeping: .theirs, as: Author(name: "jermaine", device: "phone"))
        #expect(resolved == PostFields(title: "Meeting (heather)", content: "A\nB by heather\nC", tags: [], location: "Hue"))
    }

    @Test func keepingBothKeepsEveryLineWithoutTheMarkers() throws {
        let resolved = try ConflictResolution.resolve(conflicted, keeping: .both, as: Author(name: "mary"))
        #expect(resolved == PostFields(title: "Meeting (heather) / Meeting (jermaine)", content: "A\nB by heather\nB by jermaine\nC",
                                       tags: [], location: "Hue / Saigon"))
    }

    @Test func someoneWhoWroteNeitherSideCannotKeepMineOrTheirs() {
        #expect(throws: ConflictResolution.Failure.self) { try ConflictResolution.resolve(conflicted, keeping: .mine, as: Author(name: "mary")) }
        #expect(throws: ConflictResolution.Failure.self) { try ConflictResolution.resolve(conflicted, keeping: .theirs, as: Author(name: "mary")) }
        #expect(throws: ConflictResolution.Failure.noConflict) { try ConflictResolution.resolve(base, keeping: .both, as: Author(name: "mary")) }
    }

    @Test func twoDevicesOfOneAccountTellMineByTheDevice() throws {
        let phone = Author(name: "heather", device: "phone"), laptop = Author(name: "heather", device: "laptop")
        let merged = PostMerge.merge(base: base, mine: .init(PostFields(title: "Meeting", content: "A\nphone\nC", tags: [], location: "Hanoi"), by: phone),
                                     theirs: .init(PostFields(title: "Meeting", content: "A\nlaptop\nC", tags: [], location: "Hanoi"), by: laptop)).fields
        #expect(try ConflictResolution.resolve(merged, keeping: .mine, as: phone).content == "A\nphone\nC")
        #expect(try ConflictResolution.resolve(merged, keeping: .theirs, as: phone).content == "A\nlaptop\nC")
    }

    @Test func aHalfDeletedBlockIsNoConflictButStillHasMarkers() {
        let text = "A\n<<<<<<< heather on laptop\nB\nC"
        #expect(!ConflictBlock.isConflicted(PostFields(title: "t", content: text, tags: [], location: nil)))
        #expect(ConflictBlock.hasMarkers(text))
        #expect(!ConflictBlock.hasMarkers("a <<<<<<< b"))
    }

    @Test func aBlockInsideASideIsResolvedWithIt() throws {
        // An earlier conflict, unresolved, met another edit: the outer block is resolved first.
        let inner = conflicted.content
        let outer = PostMerge.merge(base: PostFields(title: "x", content: inner, tags: [], location: nil),
                                    mine: .init(PostFields(title: "x", content: inner + "\nmine", tags: [], location: nil), by: jermaine),
                                    theirs: .init(PostFields(title: "x", content: "rewritten", tags: [], location: nil), by: heather)).fields
        let kept = try ConflictResolution.resolve(outer, keeping: .mine, as: jermaine)
        #expect(kept.content == inner + "\nmine")
    }

    @Test func bothSidesFromOneDeviceTakeTheLaterAsMine() throws {
        let me = Author(name: "heather", device: "laptop")
        let merged = PostMerge.merge(base: nil, mine: .init(PostFields(title: "t", content: "A\nagain", tags: [], location: nil), by: me),
                                     theirs: .init(PostFields(title: "t", content: "A\nfirst", tags: [], location: nil), by: me)).fields
        #expect(try ConflictResolution.resolve(merged, keeping: .mine, as: me).content == "A\nagain")
        #expect(try ConflictResolution.resolve(merged, keeping: .theirs, as: me).content == "A\nfirst")
    }
}

extension Author {
    /// As a label gives it back: to the minute.
    var rounded: Author {
        Author(name: name, device: device, at: at.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 / 60).rounded(.down) * 60) })
    }
}
