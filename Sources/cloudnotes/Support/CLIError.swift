/// A refusal by the command line itself, before or after asking the cloud.
struct CLIError: Error {
    var message: String
    /// 64 for usage errors (EX_USAGE), 1 otherwise.
    var exitCode: Int32 = 1

    static func usage(_ message: String) -> CLIError { CLIError(message: message, exitCode: 64) }
}
