import Dispatch
import Foundation
import FrontEnd
import Glibc
import Synchronization

/// Runs a front end on the real terminal: the event loop waits on the
/// keyboard, resizes (SIGWINCH makes ncurses report KEY_RESIZE) and the
/// wake pipe together, with a timeout that lets flashes expire; it never
/// waits on the cloud.
public enum TerminalApp {
    public static func run(_ frontEnd: FrontEnd, wakeup: Wakeup, environment: [String: String]) {
        let screen = CursesScreen(environment: environment)
        defer { screen.end() }
        let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        let stopping = Stopping()
        for (source, number) in [(terminate, SIGTERM), (hangup, SIGHUP)] {
            signal(number, SIG_IGN)
            source.setEventHandler {
                stopping.flag.store(true, ordering: .relaxed)
                wakeup.wake()
            }
            source.resume()
        }
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0)]
        while !frontEnd.state.quit && !stopping.flag.load(ordering: .relaxed) {
            let (width, height) = screen.size
            screen.draw(frontEnd.frame(width: width, height: height))
            clip(frontEnd)
            if frontEnd.externalEdit != nil {
                editExternally(frontEnd, screen: screen, environment: environment)
                continue  // drawn again at once, whole (curses repaints everything after a program had the terminal)
            }
            let ready = poll(&fds, 2, 1000)
            if ready == 0 { frontEnd.tick() }
            if fds[1].revents != 0 { wakeup.drain() }
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { break }  // the terminal went away
            for key in screen.readKeys() { frontEnd.handle(key) }
        }
    }

    /// Set by a signal handler on another thread, read by the loop.
    final class Stopping: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// Puts text on the clipboard through the terminal (OSC 52), where it allows.
    static func clip(_ frontEnd: FrontEnd) {
        guard let text = frontEnd.clipboard else { return }
        frontEnd.clipboard = nil
        // Straight to the terminal, past curses' buffer; a terminal that cannot take it loses the copy, not the program.
        var bytes = Array("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}".utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Hands the terminal to $VISUAL, else $EDITOR, else vi, as a job in the foreground, over a temporary file; then
    /// takes it back. What went wrong is said with the editor's name and how it ended.
    static func editExternally(_ frontEnd: FrontEnd, screen: CursesScreen, environment: [String: String]) {
        guard let post = frontEnd.externalEdit else { return }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cloudnotes-\(post.id)-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: file) }  // (a temporary file: nothing to say if it is gone)
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let name = editor.split(separator: " ").first.map(String.init) ?? editor
        // Readable by this user only: the post may be private.
        guard FileManager.default.createFile(atPath: file.path, contents: Data(ExternalForm.text(of: post).utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            return frontEnd.finishExternalEdit(nil, failure: "cannot write the file to edit in \(file.deletingLastPathComponent().path)")
        }
        screen.end()
        let outcome = ForegroundJob.run(["/bin/sh", "-c", "\(editor) \"$1\"", "editor", file.path], environment: environment)
        screen.resume()
        switch outcome {
        case .exited(0):
            do {
                frontEnd.finishExternalEdit(try String(contentsOf: file, encoding: .utf8))
            } catch {
                frontEnd.finishExternalEdit(nil, failure: "the file \(name) wrote cannot be read back as text")
            }
        case .exited(127): frontEnd.finishExternalEdit(nil, failure: "\(name) was not found (set $VISUAL or $EDITOR)")
        case .exited(let code): frontEnd.finishExternalEdit(nil, failure: "\(name) exited with status \(code)")
        case .killed(let signal): frontEnd.finishExternalEdit(nil, failure: "\(name) was ended by signal \(signal)")
        case .notStarted(let why): frontEnd.finishExternalEdit(nil, failure: "cannot start the shell to run \(name): \(why)")
        }
    }
}
