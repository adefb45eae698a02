import Notes

/// A post as a file for $EDITOR: header lines, a blank line, the text.
public enum ExternalForm {
    /// Ends in a newline, as a text file does: an editor or a tool that appends a line (`echo … >> FILE`) then
    /// starts a line of its own rather than joining the post's last one.
    public static func text(of post: Post) -> String {
        """
        Title: \(post.title)
        Tags: \(post.tags.joined(separator: ", "))
        Location: \(post.location ?? "")

        \(post.content)

        """
    }

    /// Reads the file back; headers it does not know stay in the text, so nothing typed is dropped.
    static func parse(_ text: String, into post: Post) -> PostForm {
        var form = PostForm(post: post, isNew: false)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var body: [String] = []
        while let line = lines.first {
            lines.removeFirst()
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first?.lowercased() {
            case "title": form.title = TextEditor(text: parts.count > 1 ? parts[1] : "", multiline: false)
            case "tags": form.tags = TextEditor(text: parts.count > 1 ? parts[1] : "", multiline: false)
            case "location": form.location = TextEditor(text: parts.count > 1 ? parts[1] : "", multiline: false)
            default: body.append(line)
            }
        }
        var content = (body + lines).joined(separator: "\n")
        if content.hasSuffix("\n") { content.removeLast() }  // editors end the file with a newline
        form.content = TextEditor(text: content)
        return form
    }
}
