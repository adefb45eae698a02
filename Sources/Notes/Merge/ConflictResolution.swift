/// Resolves the conflict blocks of a post the way a person chooses: keep
/// their own side, keep the other person's, or keep both (one after the
/// other, without the markers).
///
/// "Mine" is the side written by the account resolving (by this device, when
/// both sides are the account's, typed on two devices; the later side, when
/// both came from this device); "theirs" the other.
/// A person resolving a conflict between two others can keep both, or edit.
public enum ConflictResolution {
    public enum Choice: String, Sendable, CaseIterable {
        case mine, theirs, both
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noConflict
        /// Which side is "mine" (or "theirs") cannot be told: the sides' authors.
        case notYours(choice: Choice, authors: [String])

        public var description: String {
            switch self {
            case .noConflict: "it holds no conflict"
            case .notYours(let choice, let authors):
                "the conflict is between \(authors.joined(separator: " and ")): no one side of it is \(choice == .mine ? "yours" : "theirs"); keep both, or edit it"
            }
        }
    }

    /// The fields with every block resolved by `choice`, as `me` sees them.
    public static func resolve(_ fields: PostFields, keeping choice: Choice, as me: Author) throws(Failure) -> PostFields {
        var out = fields
        var found = false
        var lines = TextMerge.lines(fields.content)
        for block in ConflictBlock.find(in: fields.content).reversed() {
            found = true
            let kept = try pick(block.sides, choice, me)
            if block.field == .title {
                lines.removeSubrange(block.range)
                out.title = joined(kept.map(\.text))
            } else {
                lines.replaceSubrange(block.range, with: kept.flatMap(\.lines))
            }
        }
        out.content = lines.joined(separator: "\n")
        if let location = fields.location {
            var lines = TextMerge.lines(location)
            for block in ConflictBlock.find(in: location, field: .location).reversed() {
                found = true
                lines.replaceSubrange(block.range, with: [Substring(joined(try pick(block.sides, choice, me).map(\.text)))])
            }
            let resolved = lines.joined(separator: "\n")
            out.location = resolved.isEmpty ? nil : resolved
        }
        guard found else { throw .noConflict }
        return out
    }

    private static func pick(_ sides: [ConflictBlock.Side], _ choice: Choice, _ me: Author) throws(Failure) -> [ConflictBlock.Side] {
        var kept: [ConflictBlock.Side]
        switch choice {
        case .both:
            return sides
        case .mine:
            kept = sides.filter { $0.author.name == me.name }
            if kept.count > 1 { kept = kept.filter { $0.author.device == me.device } }
            // The same person on the same device on several sides (an edit sent again after its answer was lost,
            // two windows on one device): the newest is the edit that met the others.
            kept = newestIfOneAuthor(kept)
        case .theirs:
            kept = sides.filter { $0.author.name != me.name }
            if kept.isEmpty { kept = sides.filter { $0.author.device != me.device } }  // both mine, typed on two devices
            if kept.isEmpty, sides.count > 1 { kept = [sides.first!] }
            kept = newestIfOneAuthor(kept)
        }
        guard kept.count == 1 else { throw .notYours(choice: choice, authors: sides.map(\.author.label)) }
        return kept
    }

    /// Sides all written by one person on one device: the newest alone (by its label's time; the later of two
    /// alike). Sides of several authors stay, for the caller to refuse as ambiguous.
    private static func newestIfOneAuthor(_ sides: [ConflictBlock.Side]) -> [ConflictBlock.Side] {
        guard sides.count > 1, let first = sides.first,
              sides.allSatisfy({ $0.author.name == first.author.name && $0.author.device == first.author.device }) else { return sides }
        return [sides.reduce(first) { ($1.author.at ?? .distantPast) >= ($0.author.at ?? .distantPast) ? $1 : $0 }]
    }

    /// A one-line field keeping several values: each once, in order.
    private static func joined(_ values: [String]) -> String {
        var seen: [String] = []
        for value in values where !value.isEmpty && !seen.contains(value) { seen.append(value) }
        return seen.joined(separator: " / ")
    }
}
