import Cloud
import Foundation
import Testing
import TestSupport

/// Bad input gets a clear error, never a crash: the share-URL parser, the
/// command line's field parser and the decoding of records, over seeded
/// random and mutated inputs (`CLOUDNOTES_FUZZ_ITERATIONS` for long runs).
@Suite struct FuzzTests {
    @Test func theShareURLParserRefusesWhatIsNotALinkInOneLine() throws {
        let cloud = try TestCloud()
        let owner = try cloud.privateDatabase("heather")
        let zone = try owner.save(zone: ZoneID(name: "Notes"))
        let root = Record.make("p1", in: zone)
        let url = try owner.saveShare(Share(rootRecord: root.id, title: "p1"), rootRecord: root).url!
        let mutator = Mutator(seed: 1)
        var parsed = 0
        for _ in 0..<Mutator.iterations {
            let text = mutator.text(from: [url.absoluteString, "cloudnotes://share/", "https://example.com/share/x"])
            switch Result(catching: { () throws(CloudError) in try ShareURL(parsing: text) }) {
            case .success(let link):
                parsed += 1
                #expect(try ShareURL(parsing: link.absoluteString) == link)  // what parses prints back the same
            case .failure(let error):
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(text.debugDescription)")
            }
        }
        // Mutated links that still parse name no share: the cloud learns nothing and changes nothing.
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let snapshot = { () throws -> Data in try sorted.encode(try cloud.cloud.dump()) }
        let before = try snapshot()
        let heather = try cloud.cloud.account(named: "heather")
        for _ in 0..<200 {
            let text = mutator.text(from: [url.absoluteString])
            guard text != url.absoluteString, let link = try? ShareURL(parsing: text) else { continue }
            #expect(throws: CloudError.self) { try cloud.cloud.acceptShare(link, as: heather) }
        }
        #expect(try snapshot() == before)
        #expect(parsed < Mutator.iterations)
    }

    @Test func theFieldParserAcceptsOrExplainsEveryInput() {
        let seeds = ["title=Groceries", "count:int=3", "ratio:double=0.5", "done:bool=true", "at:date=2026-11-22T05:00:00Z",
                     "blob:bytes=aGVsbG8=", "up:ref=p1", "owner:ref-delete-self=p1", "tags:list=a,b", "loc:encrypted=AAEC"]
        let mutator = Mutator(seed: 2)
        for _ in 0..<Mutator.iterations {
            let text = mutator.text(from: seeds)
            switch Result(catching: { () throws(CloudError) in try FieldAssignment(parsing: text) }) {
            case .success(let field):
                var record = Record.make("r", in: ZoneID(name: "Z"))
                field.apply(to: &record)  // whatever parses applies
            case .failure(let error):
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(text.debugDescription)")
            }
        }
    }

    @Test func damagedRecordsAreRefusedWholeAndGoodOnesRoundTrip() throws {
        var record = Record.make("p1", in: ZoneID(name: "Notes", owner: "_heather"), ["title": "Groceries", "content": "milk"])
        record["tags"] = .list([.string("a"), .string("b")])
        record["count"] = .int(3)
        record["post"] = .reference(Reference(recordName: "p0", action: .deleteSelf))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let seed = Array(try encoder.encode(record))
        let mutator = Mutator(seed: 3)
        for _ in 0..<Mutator.iterations {
            let bytes = Data(mutator.input(from: [seed]))
            guard let decoded = try? JSONDecoder().decode(Record.self, from: bytes) else { continue }
            let again = try JSONDecoder().decode(Record.self, from: try encoder.encode(decoded))
            #expect(again == decoded)
        }
    }
}
