import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct ErrorTests {
    static let zone = ZoneID(name: "Z", owner: "_o")
    static let server = Record.make("r", in: zone)

    static let all: [CloudError] = [
        .serverRecordChanged(server: server), .zoneNotFound(zone), .unknownItem(RecordID(name: "r", zone: zone)),
        .unknownAccount("x"), .permissionFailure("no"), .participantNeedsVerification("a@b.c"),
        .participantNotInvited("no"), .alreadyShared(RecordID(name: "r", zone: zone)), .unknownShare, .tooManyParticipants(limit: 100),
        .changeTokenExpired, .partialFailure([.zone(zone): .quotaExceeded]), .batchRequestFailed,
        .limitExceeded("big"), .quotaExceeded, .invalidArguments("bad"), .networkUnavailable, .networkFailure,
        .serviceUnavailable(retryAfter: 3), .requestRateLimited(retryAfter: 4), .zoneBusy(retryAfter: 5), .storage("disk"),
    ]

    @Test func everyCaseHasItsOwnCodeAndAOneLineMessage() {
        #expect(Set(Self.all.map(\.code)).count == Self.all.count)
        for error in Self.all {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(error.code)")
        }
    }

    @Test func transientErrorsCarryRetryAfterAndOthersDoNot() {
        let transient = Self.all.filter(\.isTransient).map(\.code)
        #expect(transient == ["networkUnavailable", "networkFailure", "serviceUnavailable", "requestRateLimited", "zoneBusy"])
        #expect(CloudError.requestRateLimited(retryAfter: 4).retryAfter == 4)
        #expect(CloudError.serviceUnavailable(retryAfter: 3).retryAfter == 3)
    }

    @Test func serverRecordChangedAndPartialFailureCarryTheirData() {
        guard case .serverRecordChanged(let record) = Self.all[0] else { return }
        #expect(record == Self.server)
        #expect(CloudError.partialFailure([.zone(Self.zone): .quotaExceeded]).itemErrors == [.zone(Self.zone): .quotaExceeded])
        #expect(CloudError.quotaExceeded.itemErrors == nil)
    }
}
