@testable import Notes
import Testing

@Suite struct TextMergeTests {
    let base = "milk\neggs\nbread\nbutter"

    @Test func editsOfDifferentLinesBothSurvive() {
        let result = TextMerge.merge(base: base, local: "milk\neggs (a dozen)\nbread\nbutter",
                                     server: "milk\neggs\nbread\nbutter\ncheese")
        #expect(result == .init(text: "milk\neggs (a dozen)\nbread\nbutter\ncheese", conflicted: false))
    }

    @Test func anOverlappingEditKeepsTheServersTextAndThisDevicesVisibly() {
        let result = TextMerge.merge(base: base, local: "milk\noat milk\nbread\nbutter", server: "milk\nno eggs\nbread\nbutter")
        #expect(result.conflicted)
        #expect(result.text == "milk\nno eggs\n\(TextMerge.conflictStart)\noat milk\n\(TextMerge.conflictEnd)\nbread\nbutter")
    }

    @Test func theSameEditOnBothSidesIsTakenOnce() {
        let edited = "milk\neggs\nrye bread\nbutter"
        #expect(TextMerge.merge(base: base, local: edited, server: edited) == .init(text: edited, conflicted: false))
    }

    @Test func oneSidedChangesWin() {
        #expect(TextMerge.merge(base: base, local: base, server: "x").text == "x")
        #expect(TextMerge.merge(base: base, local: "y", server: base).text == "y")
    }

    @Test func deletionsAndInsertionsInDifferentPlacesBothApply() {
        let result = TextMerge.merge(base: base, local: "milk\nbread\nbutter", server: "coffee\nmilk\neggs\nbread\nbutter")
        #expect(result == .init(text: "coffee\nmilk\nbread\nbutter", conflicted: false))
    }

    @Test func noLocalWordIsLostWhateverTheEdits() {
        // Every line this device typed is in the merge, whatever the server did.
        let locals = ["milk\nmy line\nbread", "", "a\nb\nc\nd\ne", "milk\neggs\nbread\nbutter\nmine"]
        let servers = ["milk\ntheirs\nbread", "completely\ndifferent", "", "butter"]
        for local in locals {
            for server in servers {
                let merged = TextMerge.merge(base: base, local: local, server: server).text
                for line in TextMerge.lines(local) where !line.isEmpty && !TextMerge.lines(base).contains(line) {
                    #expect(TextMerge.lines(merged).contains(line), "lost \(line) merging \(local.debugDescription) with \(server.debugDescription)")
                }
            }
        }
    }
}
