import ArgumentParser
import Cloud
import Foundation

// Errors reach the user as one line on stderr: usage errors exit 64 (as
// swift-argument-parser's validation errors do), everything else 1.
do {
    var command = try CloudNotes.parseAsRoot()
    try command.run()
} catch let error as CloudError {
    Output.fail(error.description)
} catch let error as CLIError {
    Output.fail(error.message, code: error.exitCode)
} catch {
    CloudNotes.exit(withError: error)
}
