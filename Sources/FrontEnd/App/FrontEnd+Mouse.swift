import Notes

/// The mouse: a press selects and focuses what is under it, the wheel scrolls it, a press on a footer key
/// or a dialog's button runs the key.
extension FrontEnd {
    func mouse(_ event: Mouse) {
        if event.action == .press, let target = pressTargets.last(where: { $0.area.contains(x: event.x, y: event.y) }) {
            return handle(target.key)
        }
        let participants = selectedDetail()?.share?.currentParticipants.count
        let layout = Layout(width: size.width, height: size.height, participants: participants)
        if event.y == layout.footerLine {
            if event.action == .press { pressFooter(at: event.x) }
            return
        }
        switch state.mode {
        case .browse: break
        case .help, .history, .trash, .notices, .messages, .inbox, .pickFilter, .pickComment, .shareScreen:
            // A list in a dialog: the wheel moves through it, as ↑ and ↓ do.
            if event.action != .press { handle(event.action == .wheelUp ? .up : .down) }
            return
        case .prompt, .confirm, .edit, .share:
            return  // their buttons are targets; the wheel would change a line being typed
        }
        let step = event.action == .wheelUp ? -3 : 3
        if layout.list.contains(event) {
            state.focus = .list
            if event.action == .press {
                let row = event.y - layout.list.y - 1
                if row >= 0, row < layout.listRows, state.scroll + row < postCount() { state.selection = state.scroll + row }
            } else {
                move(step)
            }
        } else if layout.detail.contains(event) {
            state.focus = .detail
            if event.action != .press { move(step) }
        } else if let rect = layout.participants, rect.contains(event) {
            state.focus = .participants
            if event.action == .press {
                let row = event.y - rect.y - 2  // under the border and the header
                if row >= 0, row < min(participants ?? 0, rect.height - 3) { state.participantSelection = row }
            } else {
                move(step > 0 ? 1 : -1)
            }
        }
    }

    /// A press on the footer: the key of the item under it, as if typed.
    func pressFooter(at x: Int) {
        // The command line's completions stand in the footer's place: a press takes the one under it.
        if case .prompt(var prompt) = state.mode, !prompt.candidates.isEmpty {
            guard let slot = Renderer.candidateSlots(prompt, width: size.width).last(where: { $0.x <= x }),
                  x < slot.x + prompt.candidates[slot.index].columns else { return }
            prompt.editor = TextEditor(text: prompt.candidates[slot.index], multiline: false)
            prompt.candidates = completions(prompt.editor.text)
            prompt.candidate = nil
            return state.mode = .prompt(prompt)
        }
        guard let slot = Renderer.footerSlots(footer(), width: size.width).last(where: { $0.x <= x }),
              x < slot.x + slot.item.key.columns + 1 + slot.item.label.columns else { return }
        if state.mode == .browse,
           let command = Commands.all.first(where: { $0.keys.first?.description == slot.item.key && $0.applies(in: state.focus) }) {
            return perform(command.id)
        }
        // A dialog's footer (or a pane's own moves) says "n/Esc", "^S": the first key it names.
        let name = String(slot.item.key.split(separator: "/").first ?? "")
        let named: [String: Key] = ["Esc": .escape, "Enter": .enter, "Tab": .tab, "Space": .char(" "), "←→": .left, "↑↓": .up]
        if let key = named[name] {
            handle(key)
        } else if name.hasPrefix("^"), let letter = name.dropFirst().first, name.count == 2 {
            handle(.ctrl(Character(letter.lowercased())))
        } else if name.count == 1, let letter = name.first {
            handle(.char(letter))
        }
    }
}

extension Layout.Rect {
    func contains(_ event: Mouse) -> Bool {
        (x..<(x + width)).contains(event.x) && (y..<(y + height)).contains(event.y)
    }
}
