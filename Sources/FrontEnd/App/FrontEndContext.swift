import Cloud
import Foundation
import Notes

/// What runs sync for the front end; `LiveSync` in the app, a stand-in in tests.
public protocol SyncControl: Sendable {
    func changesAdded()
    func refresh()
    func status() -> LiveSync.Status
    /// The cloud was emptied, replaced or restored: `reupload` rebuilds it from this device.
    var cloudChanged: Bool { get }
    func reupload()
}

extension LiveSync: SyncControl {}
extension DeviceSync: SyncControl {}

/// Everything the front end works with, injected: the store, who is signed
/// in, the sharing seam, the sync, the clock and IDs (so runs replay), and
/// how to run work off the event loop's thread and wake it afterwards.
public struct FrontEndContext: Sendable {
    public var store: DeviceStore
    public var account: Account
    public var device: String
    public var sharing: any SharingProvider
    /// Turns a user record ID into a name people know.
    public var names: @Sendable (String) -> String
    /// Talks to the cloud about shares; nil where there is no cloud.
    public var postSharing: PostSharing?
    /// Nil when another process of the device syncs it.
    public var sync: (any SyncControl)?
    public var now: @Sendable () -> Date
    public var newID: @Sendable (_ prefix: String) -> String
    public var background: @Sendable (@escaping @Sendable () -> Void) -> Void
    public var wake: @Sendable () -> Void

    /// History and trash, kept by the cloud; nil where there is no cloud.
    public var history: PostHistory? { postSharing.map { PostHistory(store: $0.store, cloud: $0.cloud, account: $0.account) } }

    /// Who this front end's edits are by.
    public var editor: Editor { Editor(account: account, device: device) }

    public init(store: DeviceStore, account: Account, device: String, sharing: any SharingProvider, names: @escaping @Sendable (String) -> String,
                postSharing: PostSharing? = nil, sync: (any SyncControl)? = nil,
                now: @escaping @Sendable () -> Date = Date.init,
                newID: @escaping @Sendable (String) -> String = { $0 + SystemRandom().hex(bytes: 6) },
                background: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() },
                wake: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.account = account
        self.device = device
        self.sharing = sharing
        self.names = names
        self.postSharing = postSharing
        self.sync = sync
        self.now = now
        self.newID = newID
        self.background = background
        self.wake = wake
    }
}
