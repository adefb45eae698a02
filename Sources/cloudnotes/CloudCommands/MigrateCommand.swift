import ArgumentParser
import Cloud
import CloudPostgres
import Foundation
import Notes

/// `cloudnotes cloud migrate`: a cloud directory's file into PostgreSQL, for a team that outgrew one file.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a cloud directory's state into an empty PostgreSQL database, every change token still good.",
        discussion: """
            Every record, tombstone, share, token hash, device key and the change sequence move as they are, \
            with the cloud's identity, so devices go on syncing from where they were. Then serve with \
            cloudnotes cloud serve --cloud DIR --store URL. The database must hold no cloud anyone used. The file takes \
            no change from the moment the copy starts: a server or device still on it is refused, saying where the \
            cloud went, and keeps what it had to send for the new store (stop the file's servers first all the \
            same). A copy that fails leaves the file serving as before; a run cut short is finished by running it \
            again, or taken back with --undo.
            """)

    @Option(help: ArgumentHelp("The cloud directory to copy.", valueName: "DIR")) var from: String
    @Option(help: ArgumentHelp("The PostgreSQL database to copy it into (with --undo: where it went, to check, when the file's mark names it without its password).",
                               valueName: "postgresql://USER@HOST[:PORT]/DB")) var to: String?
    @Flag(help: """
        Take back the mark an earlier migrate left on the file, so that it serves the cloud again as it was when \
        copied. Refused if the database holds changes made since, or cannot be asked.
        """) var undo = false
    @Flag(help: "With --undo: take the file back all the same, under a new identity (devices then rebuild the cloud from what they hold).")
    var force = false

    func validate() throws {
        if !undo, to == nil { throw ValidationError("Missing expected argument '--to <postgresql://USER@HOST[:PORT]/DB>'") }
        if force, !undo { throw ValidationError("--force goes with --undo") }
    }

    func run() throws {
        let directory = URL(fileURLWithPath: from)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(LocalCloud.fileName).path) else {
            throw CLIError(message: "\(from) holds no cloud (no \(LocalCloud.fileName))")
        }
        // One migrate or undo of a directory at a time: an undo between another run's copy and its end would set
        // the file serving again under a copy that is in use.
        guard let lock = DeviceLock(directory: directory, file: "migrate.lock") else {
            throw CLIError(message: "another cloudnotes cloud migrate of \(from) is running (or \(from) cannot be written)")
        }
        defer { withExtendedLifetime(lock) {} }
        let source = try LocalCloud.fileStorage(in: directory)
        if undo { return try takeBack(source) }
        guard let to else { return }
        if try StorageCopy.destination(of: source) == nil {
            // Opened as a cloud first: a file with no identity gets one, and one put back below its high-water
            // mark a new one (its change numbers moved past what devices saw), before either is copied. (A file
            // marked as moved by a run cut short took no change since, and is copied as it is.)
            _ = try LocalCloud(directory: directory)
        }
        let opened = Result { () throws(CloudError) in try PostgresStorage(url: to) }
        if case .failure(.serviceUnavailable) = opened {
            // (Text that is no PostgreSQL URL never opened a store: shown as the person wrote it.)
            let shown = (try? PostgresLocation(parsing: to).description) ?? to
            throw CLIError(message: "\(shown) is not answering: nothing was copied (is PostgreSQL running there, and is the URL right?)")
        }
        let target = try opened.get()
        let report = try StorageCopy.copy(from: source, to: target, retiredAt: Date())
        if report.rows.isEmpty {
            // A run cut short: the database had taken the cloud; the file is marked now, if it was not.
            Output.line("\(target.location) already held cloud \(report.identity) at change \(report.sequence); the file takes no more changes")
        } else {
            Output.line("copied \(report) into \(target.location); the file takes no more changes")
        }
    }

    private func takeBack(_ source: any CloudStorage) throws {
        let marked = try StorageCopy.destination(of: source)
        let taken = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in
            try PostgresStorage(url: to ?? marked ?? "")
        }, force: force, highWater: URL(fileURLWithPath: from))
        guard let taken else { throw CLIError(message: "\(from) has not moved: there is no migrate to undo") }
        if let renamed = taken.newIdentity {
            Output.line("\(from) serves its cloud again, as it was when copied to \(taken.destination), as cloud \(renamed): "
                        + "devices rebuild it from what they hold (sync --reupload)")
        } else {
            Output.line("\(from) serves its cloud again, as it was when copied to \(taken.destination), which holds the same, row for row")
        }
    }
}
