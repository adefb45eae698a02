import ArgumentParser
import Foundation
import Notes

struct ShowNotices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notices",
        abstract: "What others did lately that touches you: removed you, stopped sharing, changed your permission, accepted, left.")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Print JSON.") var json = false

    struct NoticeView: Encodable {
        var at: Date
        var kind: String
        var by: String
        var text: String
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let names = try AccountNames(session.cloud)
        let views = try session.store.notices().map {
            NoticeView(at: $0.at, kind: $0.kind.rawValue, by: names($0.by), text: $0.text(names: names.callAsFunction))
        }
        if json { return try Output.json(views) }
        if views.isEmpty { return Output.line("no notices yet") }
        Output.table(views.map { [Output.date($0.at), $0.text] })
    }
}
