import CloudClient
import Foundation
import Testing
import TestSupport

/// README's shell examples, run in order as one bash script in a fresh directory, as a new user pastes them:
/// a command that fails fails the test; one followed by `# → TEXT` must print TEXT (stdout or stderr), and
/// one followed by `# ✗ TEXT` must be refused (a non-zero exit) saying TEXT, so the text beside an example
/// cannot say what it does not do. Values carry from one command to the next as README writes them, in
/// shell variables (`URL=$(cn share …)`).
///
/// Every ```sh block runs, but for one just after a `<!-- not run: REASON -->` line (a front end in three
/// terminals, a server that serves until stopped): the reason is part of README, so what is left out is said.
/// `cn` is the built executable (README's `alias cn=…` lines do nothing in a script); nothing is built.
@Suite(.serialized) struct ReadmeShellTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    @Test func readmesShellExamplesRunInOrderAndSayWhatTheyDo() throws {
        let blocks = Self.blocks(try String(contentsOf: Self.readme, encoding: .utf8))
        #expect(blocks.run.count >= 8, "README's examples were found: \(blocks.run.count)")
        #expect(blocks.skipped.allSatisfy { !$0.reason.isEmpty })
        let directory = TemporaryDirectory("readme")
        let script = directory.url.appendingPathComponent("readme.sh")
        try Self.script(blocks.run).write(to: script, atomically: true, encoding: .utf8)
        let home = directory.url.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CLOUDNOTES_") }
        environment.merge(["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path, "TZ": "UTC",
                           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "USER": "jermaine",
                           "CN": CloudNotesBinary.url.path, "TMPDIR": directory.url.path]) { $1 }
        let run = try Spawn.run(["/bin/bash", script.path], environment: environment, capture: true)
        #expect(run.status == 0, "README's examples failed:\n\(run.output.suffix(6_000))")
    }

    struct Block {
        var line: Int
        var text: String
    }

    /// The ```sh blocks, those to run and those README says it does not run (and why).
    static func blocks(_ readme: String) -> (run: [Block], skipped: [(line: Int, reason: String)]) {
        var run: [Block] = [], skipped: [(Int, String)] = []
        var current: Block?
        var reason: String?
        for (index, line) in readme.components(separatedBy: "\n").enumerated() {
            if var block = current {
                if line.hasPrefix("```") {
                    if let why = reason { skipped.append((block.line, why)) } else { run.append(block) }
                    (current, reason) = (nil, nil)
                } else {
                    block.text += line + "\n"
                    current = block
                }
            } else if line == "```sh" {
                current = Block(line: index + 1, text: "")
            } else if line.hasPrefix("<!-- not run:") {
                reason = line.dropFirst("<!-- not run:".count).replacingOccurrences(of: "-->", with: "").trimmingCharacters(in: .whitespaces)
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                reason = nil  // a note applies to the block just after it
            }
        }
        return (run, skipped)
    }

    /// One script of the blocks: each command line traced with its README line, `# → TEXT` checked.
    static func script(_ blocks: [Block]) -> String {
        var lines = [
            "set -uo pipefail",
            "cn() { \"$CN\" \"$@\"; }",
            "check() { local want=$1 line=$2; shift 2; local out status; out=$(\"$@\" 2>&1) && status=0 || status=$?; printf '%s\\n' \"$out\";",
            "  if [ $status -ne 0 ]; then echo \"README line $line failed ($status)\" >&2; exit 1; fi",
            "  if ! grep -qF -- \"$want\" <<<\"$out\"; then echo \"README line $line: expected \\\"$want\\\" in its output\" >&2; exit 1; fi; }",
            "refused() { local want=$1 line=$2; shift 2; local out status; out=$(\"$@\" 2>&1) && status=0 || status=$?; printf '%s\\n' \"$out\";",
            "  if [ $status -eq 0 ]; then echo \"README line $line: expected a refusal\" >&2; exit 1; fi",
            "  if ! grep -qF -- \"$want\" <<<\"$out\"; then echo \"README line $line: expected \\\"$want\\\" in its refusal\" >&2; exit 1; fi; }",
            "trap 'echo \"README line ${README_LINE:-?} failed: $BASH_COMMAND\" >&2; exit 1' ERR",
            "set -e",
        ]
        for block in blocks {
            var pending = "", start = 0
            for (offset, raw) in block.text.components(separatedBy: "\n").enumerated() {
                if pending.isEmpty { start = block.line + 1 + offset }
                if raw.hasSuffix("\\") {
                    pending += String(raw.dropLast()) + " "
                    continue
                }
                let command = pending + raw
                pending = ""
                guard !command.trimmingCharacters(in: .whitespaces).isEmpty, !command.trimmingCharacters(in: .whitespaces).hasPrefix("#") else { continue }
                lines.append("README_LINE=\(start)")
                if let mark = command.range(of: "# → ") ?? command.range(of: "# ✗ ") {
                    let want = command[mark.upperBound...].trimmingCharacters(in: .whitespaces)
                    let call = command[..<mark.lowerBound].trimmingCharacters(in: .whitespaces)
                    let verb = command[mark].hasSuffix("→ ") ? "check" : "refused"
                    // The call becomes a function's body, so it may begin with assignments (`VAR=… cn …`).
                    lines.append("readme_call() { \(call); }")
                    lines.append("\(verb) \(Self.quoted(want)) \(start) readme_call")
                } else {
                    lines.append(command)
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
