import ArgumentParser
import Cloud
import Foundation
import Notes

// A standard descriptor a caller closed (`2>&-`) is /dev/null's: otherwise the next file opened (a store, a
// lock) would take its number, and a warning or a question meant for the terminal would be written into it.
for descriptor in STDIN_FILENO...STDERR_FILENO where fcntl(descriptor, F_GETFD) == -1 {
    _ = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)  // the lowest free number: this one
}

// Errors reach the user as one line on stderr: usage errors exit 64 (as
// swift-argument-parser's validation errors do), everything else 1.
do {
    var command = try CloudNotes.parseAsRoot(SaveRecord.packOptions(try Arguments.checked()))
    if var server = command as? AsyncParsableCommand {
        try await runAsync(&server)
    } else {
        try command.run()
    }
} catch let error as CloudError {
    Output.fail(error.description)
} catch let error as StoreError {
    Output.fail(error.description)
} catch let error as CLIError {
    Output.fail(error.message, code: error.exitCode)
} catch {
    let code = CloudNotes.exitCode(for: error)
    if code == .success { CloudNotes.exit(withError: error) }  // --help and friends print in full
    let message = CloudNotes.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    Output.fail("\(message) (see 'cloudnotes --help')", code: code.rawValue)
}

/// Runs an async command (the server); a separate function, so its `run` resolves to the async one.
func runAsync(_ command: inout any AsyncParsableCommand) async throws {
    try await command.run()
}
