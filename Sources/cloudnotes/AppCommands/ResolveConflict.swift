import ArgumentParser
import Foundation
import Notes

/// `cloudnotes resolve POST --mine|--theirs|--both`: settles a post's conflict blocks from the shell.
struct ResolveConflict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve", abstract: "Settle a post's conflict: keep your text, theirs, or both.",
        discussion: "A conflict keeps both texts of an overlapping edit, each under the name of who wrote it ('cloudnotes show POST'). "
            + "--mine keeps the side you (this account) wrote, --theirs the other, --both keeps both without the markers. "
            + "When both sides are yours, typed on two devices, --mine is the side typed on this device (--device), --theirs the other's.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Flag(help: "Keep the text you wrote (this device's, when both sides are yours).") var mine = false
    @Flag(help: "Keep the other person's text.") var theirs = false
    @Flag(help: "Keep both texts, one after the other.") var both = false

    func validate() throws {
        if [mine, theirs, both].filter({ $0 }).count != 1 { throw ValidationError("say which to keep: --mine, --theirs or --both") }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        try requireWritable(found, session)
        let choice: ConflictResolution.Choice = mine ? .mine : theirs ? .theirs : .both
        let saved: SavedEdit
        do {
            saved = try session.store.resolve(found, keeping: choice, by: session.editor, now: Date())
        } catch let failure as ConflictResolution.Failure {
            throw CLIError(message: "\"\(found.title)\": \(failure)")
        }
        Output.line("resolved \(saved.post.id) \"\(saved.post.title)\", keeping \(choice == .both ? "both" : choice.rawValue)" + EditNote(saved).text)
        if let note = session.sync() { Output.line(note) }
    }
}

/// What to add to "edited …" when the edit met others' changes.
struct EditNote {
    let text: String

    init(_ saved: SavedEdit) {
        var parts: [String] = []
        if saved.restored { parts.append("it had been deleted elsewhere; your edit brought it back") }
        if let other = saved.mergedWith { parts.append("merged with the edit by \(other.label)") }
        if saved.conflicted {
            parts.append("where both changed the same text both are kept: 'cloudnotes show \(saved.post.id)', "
                         + "then 'cloudnotes resolve \(saved.post.id) --mine|--theirs|--both'")
        }
        text = parts.isEmpty ? "" : " (" + parts.joined(separator: "; ") + ")"
    }
}
