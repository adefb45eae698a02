import ArgumentParser
import Foundation

/// A post's text given as `--body TEXT` or `--body-file PATH` (`-` for standard input): a long text or one that
/// holds what a shell mangles comes from a file, whole, or is refused with one line saying why.
struct BodyInput {
    var text: String?
    var file: String?

    func validate() throws {
        if text != nil && file != nil { throw ValidationError("give the text as --body or --body-file, not both") }
    }

    /// The text given, nil when none was.
    func read() throws -> String? {
        guard let file else { return text }
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else { throw CLIError(message: "\(file): no such file") }
            guard !isDirectory.boolValue else { throw CLIError(message: "\(file): is a directory, not a file") }
            guard let read = FileManager.default.contents(atPath: file) else { throw CLIError(message: "\(file): cannot be read") }
            data = read
        }
        let source = file == "-" ? "standard input" : file
        guard let body = String(data: data, encoding: .utf8) else { throw CLIError(message: "\(source): is not UTF-8 text; nothing was saved") }
        // A NUL cuts a text short wherever it is read as C text (the device's store does): refused, not half kept.
        guard !data.contains(0) else { throw CLIError(message: "\(source): holds a NUL byte, which no post can keep; nothing was saved") }
        return body
    }
}
