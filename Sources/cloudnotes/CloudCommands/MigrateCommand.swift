import ArgumentParser
import Cloud
import CloudPostgres
import Foundation

/// `cloudnotes cloud migrate`: a cloud directory's file into PostgreSQL, for a team that outgrew one file.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a cloud directory's state into an empty PostgreSQL database, every change token still good.",
        discussion: """
            Every record, tombstone, share, token hash, device key and the change sequence move as they are, \
            with the cloud's identity, so devices go on syncing from where they were. Then serve with \
            cloudnotes cloud serve --cloud DIR --store URL. The database must hold no cloud yet. The file takes \
            no change after the copy: a server or device still on it is refused, saying where the cloud went, and \
            keeps what it had to send for the new store (stop the file's servers first all the same).
            """)

    @Option(help: ArgumentHelp("The cloud directory to copy.", valueName: "DIR")) var from: String
    @Option(help: ArgumentHelp("The PostgreSQL database to copy it into.", valueName: "postgresql://USER@HOST[:PORT]/DB")) var to: String

    func run() throws {
        let directory = URL(fileURLWithPath: from)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(LocalCloud.fileName).path) else {
            throw CLIError(message: "\(from) holds no cloud (no \(LocalCloud.fileName))")
        }
        // Opened as a cloud first: a file with no identity gets one, and one put back below its high-water mark a
        // new one (its change numbers moved past what devices saw), before either is copied.
        _ = try LocalCloud(directory: directory)
        let opened = Result { () throws(CloudError) in try PostgresStorage(url: to) }
        if case .failure(.serviceUnavailable) = opened {
            let shown = (try? PostgresLocation(parsing: to).description) ?? to
            throw CLIError(message: "\(shown) is not answering: nothing was copied (is PostgreSQL running there, and is the URL right?)")
        }
        let target = try opened.get()
        let report = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory), to: target, retiredAt: Date())
        if report.rows.isEmpty {
            // A run cut short after the database took the cloud: this one marked the file.
            Output.line("\(target.location) already held cloud \(report.identity) at change \(report.sequence); the file takes no more changes")
        } else {
            Output.line("copied \(report) into \(target.location); the file takes no more changes")
        }
    }
}
