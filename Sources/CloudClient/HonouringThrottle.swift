import Cloud
import Foundation

/// What a well-behaved client of the server does when told THROTTLED: nothing was done, so it waits as long as it
/// was told and asks again, a few times at most. (The server charges an account for its requests' processor
/// time, which a busy machine can inflate: an honest client may be told to wait, and must not take it as a refusal.)
/// The app's sync does this in its scheduler; tools and tests that call the cloud directly do it here.
public func honouringThrottle<T>(tries: Int = 20, _ body: () throws(CloudError) -> T) throws(CloudError) -> T {
    var waited = 0
    while true {
        do {
            return try body()
        } catch {
            guard case .requestRateLimited(let wait) = error, waited < tries else { throw error }
            waited += 1
            Thread.sleep(forTimeInterval: min(max(wait, 0.01), 5))
        }
    }
}
