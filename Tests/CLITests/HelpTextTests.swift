import Foundation
import Testing
import TestSupport

/// Every command's `--help`, read as a new user reads it: it answers, says no default twice, and claims nothing
/// that stopped being true.
@Suite struct HelpTextTests {
    /// The subcommands `--help` lists for `prefix` (`[]` for the top level, `["cloud"]` for the console).
    private func subcommands(_ prefix: [String]) throws -> [String] {
        let help = try CloudNotesBinary.run(prefix + ["--help"]).stdout
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line in
            // A subcommand's line starts with two spaces and its name; wrapped abstracts start further in.
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    @Test func everyHelpAnswersWithoutRepeatsOrStaleClaims() throws {
        let top = try subcommands([])
        #expect(top.contains("new") && top.contains("cloud"), "\(top)")
        let console = try subcommands(["cloud"])
        #expect(console.contains("serve") && console.contains("operator-sign-in"), "\(console)")
        let commands = [[]] + top.map { [$0] } + console.map { ["cloud", $0] }
        for command in commands {
            let result = try CloudNotesBinary.run(command + ["--help"])
            let name = (["cloudnotes"] + command).joined(separator: " ")
            #expect(result.status == 0, "\(name) --help: \(result.stderr)")
            #expect(result.stdout.contains("USAGE:"), "\(name)")
            // An option's text, its wrapped lines joined, names its default once.
            let options = result.stdout.replacingOccurrences(of: "\n {20,}", with: " ", options: .regularExpression)
            for line in options.split(separator: "\n") where line.components(separatedBy: "(default:").count > 2 {
                Issue.record("\(name): a default said twice: \(line)")
            }
            for stale in ["for now", "not yet", "TODO"] where result.stdout.contains(stale) {
                Issue.record("\(name): says \"\(stale)\"")
            }
        }
    }
}
