import Foundation

/// The command line's arguments, refused whole when one is not UTF-8: Swift
/// would replace the bad bytes (a name, a title) with U+FFFD and go on, saving
/// something other than what was typed.
enum Arguments {
    static func checked() throws -> [String] {
        var arguments: [String] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index], let argument = String(validatingCString: pointer) else {
                throw CLIError.usage("argument \(index) is not valid UTF-8")
            }
            arguments.append(argument)
        }
        return arguments
    }
}
