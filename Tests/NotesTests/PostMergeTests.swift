import Notes
import Testing

@Suite struct PostMergeTests {
    let base = PostFields(title: "Groceries", content: "milk\neggs", tags: ["home"], location: "Hanoi")

    @Test func differentFieldsBothSurvive() {
        var local = base, server = base
        local.title = "Groceries for Sunday"
        server.content = "milk\neggs\nbread"
        let result = PostMerge.merge(base: base, local: local, server: server)
        #expect(result.fields == PostFields(title: "Groceries for Sunday", content: "milk\neggs\nbread", tags: ["home"], location: "Hanoi"))
        #expect(!result.conflicted)
    }

    @Test func aTitleEditedOnBothSidesKeepsTheServersAndShowsThisDevices() {
        var local = base, server = base
        local.title = "Mine"
        server.title = "Theirs"
        let result = PostMerge.merge(base: base, local: local, server: server)
        #expect(result.fields.title == "Theirs")
        #expect(result.fields.content.contains("title on this device: Mine"))
        #expect(result.conflicted)
    }

    @Test func tagsMergeAsSets() {
        let result = PostMerge.merge(base: base, local: PostFields(title: "Groceries", content: "milk\neggs", tags: ["home", "urgent"], location: "Hanoi"),
                                     server: PostFields(title: "Groceries", content: "milk\neggs", tags: ["food"], location: "Hanoi"))
        #expect(result.fields.tags == ["food", "urgent"])
    }

    @Test func overlappingContentIsKeptVisiblyAndFlagged() {
        var local = base, server = base
        local.content = "milk\nduck eggs"
        server.content = "milk\nno eggs"
        let result = PostMerge.merge(base: base, local: local, server: server)
        #expect(result.conflicted)
        #expect(result.fields.content.contains("duck eggs") && result.fields.content.contains("no eggs"))
    }
}
