import ArgumentParser
import Cloud

struct CreateAccount: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register an account (name, email, a random user record ID) and print a code its first device signs in to a server with.")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The account's name, as typed after --account.") var name: String
    @Option(help: "The account's email (default: NAME@example.com).") var email: String?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let (account, code) = try cloud.console().createAccount(name: name, email: email)
        if json {
            struct Created: Encodable {
                var account: Account
                var code: String
            }
            return try Output.json(Created(account: account, code: code))
        }
        Output.line("created account \(account.name) <\(account.email)> \(account.id)")
        try EnrolmentCode.print(code, for: account.name, server: cloud.server, json: false)
    }
}

struct Accounts: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the cloud's accounts.")

    @OptionGroup var cloud: CloudOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let accounts = try cloud.open().accounts()
        if json { return try Output.json(accounts) }
        if accounts.isEmpty { return Output.line("no accounts (create one with 'cloudnotes cloud create-account NAME')") }
        Output.table([["NAME", "EMAIL", "USER RECORD ID"]] + accounts.map { [$0.name, $0.email, $0.id] })
    }
}
