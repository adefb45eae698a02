import Foundation

/// Where a store's password comes from when its URL holds none, as libpq looks: `PGPASSWORD`, then the password file
/// (`?passfile=FILE`, else `PGPASSFILE`, else `~/.pgpass`), whose lines are `HOST:PORT:DATABASE:USER:PASSWORD` with `*`
/// for any and `\:` for a colon; the first line that matches. A password in the URL shows in `ps` to every user of
/// the machine; these do not.
enum PostgresPassword {
    static func lookUp(host: String, port: Int, database: String, user: String, passfile: String?,
                       environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let home = environment["HOME"].map { $0 + "/.pgpass" }
        guard let path = passfile ?? environment["PGPASSFILE"] ?? home,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }  // (none: no password, as libpq)
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A line's fields: split at colons, `\:` and `\\` taken as the characters they escape.
    private static func split(_ line: String) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
