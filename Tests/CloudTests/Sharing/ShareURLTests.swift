@testable import Cloud
import Foundation
import Testing

@Suite struct ShareURLTests {
    @Test func generatedLinksParseBackAndDifferBySeed() throws {
        let a = ShareURL.generate(container: "iCloud.cloudnotes", random: SeededRandom(seed: 1))
        let b = ShareURL.generate(container: "iCloud.cloudnotes", random: SeededRandom(seed: 1))
        let c = ShareURL.generate(container: "iCloud.cloudnotes", random: SeededRandom(seed: 2))
        #expect(a == b && a != c)
        #expect(try ShareURL(parsing: "  " + a.absoluteString + "\n") == a)
        #expect(a.absoluteString.hasPrefix("cloudnotes://share/iCloud.cloudnotes/"))
        #expect(a.tokenHash.count == 32 && a.tokenHash != c.tokenHash)
    }

    @Test func jsonCarriesTheWholeLink() throws {
        let url = ShareURL.generate(container: "iCloud.cloudnotes", random: SeededRandom(seed: 3))
        let data = try JSONEncoder().encode(url)
        #expect(try JSONDecoder().decode(ShareURL.self, from: data) == url)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ShareURL.self, from: Data("\"nope\"".utf8)) }
    }

    @Test(arguments: ["", "cloudnotes://share", "cloudnotes://share/iCloud.cloudnotes",
                      "cloudnotes://share/iCloud.cloudnotes/", "cloudnotes://share/bad container/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                      "cloudnotes://share/iCloud.cloudnotes/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+",
                      "cloudnotes://share/iCloud.cloudnotes/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                      "cloudnotes://share/iCloud.cloudnotes/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/x",
                      "http://share/iCloud.cloudnotes/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
    func malformedLinksAreRefusedInOneLine(text: String) {
        #expect {
            try ShareURL(parsing: text)
        } throws: { error in
            (error as? CloudError)?.description.contains("\n") == false
        }
    }
}
