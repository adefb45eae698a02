extension Int {
    /// A count with its noun, for messages people read: "1 post", "3 posts", "1 person", "2 people".
    public func counting(_ noun: String, plural: String? = nil) -> String {
        "\(self) \(self == 1 ? noun : plural ?? noun + "s")"
    }
}
