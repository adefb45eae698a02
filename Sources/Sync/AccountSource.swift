import Cloud
import Foundation

/// Tells the engine which account the device is signed into now; nil when
/// signed out. The engine asks before every fetch and send.
public protocol AccountSource: Sendable {
    func currentAccount() -> Account?
}

/// A device that stays signed into one account.
public struct FixedAccount: AccountSource {
    public let account: Account
    public init(_ account: Account) { self.account = account }
    public func currentAccount() -> Account? { account }
}

/// A device whose account can change while it runs (tests, the simulation).
public final class SwitchableAccount: AccountSource, @unchecked Sendable {
    private let lock = NSLock()
    private var account: Account?

    public init(_ account: Account?) { self.account = account }
    public func currentAccount() -> Account? { lock.withLock { account } }
    public func signIn(_ account: Account?) { lock.withLock { self.account = account } }
}
