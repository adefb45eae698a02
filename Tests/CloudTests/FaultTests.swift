import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct FaultTests {
    @Test func faultsAreOffByDefault() throws {
        let test = try TestCloud(faults: nil)
        #expect(test.cloud.faultPlan == .off)
        #expect(throws: Never.self) { try test.privateDatabase("heather").save(zone: ZoneID(name: "Notes")) }
    }

    @Test func unreachableFailsEveryRequestAndChangesNothing() throws {
        let test = try TestCloud(faults: nil)
        let heather = try test.cloud.createAccount(name: "heather")
        try test.cloud.setFaultPlan(.unreachable)
        let db = test.cloud.database(.private, as: heather)

        #expect(throws: CloudError.networkUnavailable) { try db.save(zone: ZoneID(name: "Notes")) }
        #expect(throws: CloudError.networkUnavailable) { try db.allZones() }

        try test.cloud.setFaultPlan(.off)
        #expect(try db.allZones().isEmpty)
    }

    @Test func theFileSwitchReachesEveryConnectionToTheDirectory() throws {
        let test = try TestCloud(faults: nil)
        let heather = try test.cloud.createAccount(name: "heather")
        let other = try test.reopen(faults: nil)

        try other.setFaultPlan(FaultPlan(rate: 1, errors: [.zoneBusy], retryAfter: 0.5))

        #expect(throws: CloudError.zoneBusy(retryAfter: 0.5)) {
            try test.cloud.database(.private, as: heather).allZones()
        }
    }

    @Test func theEnvironmentOverridesTheFile() throws {
        let dir = TemporaryDirectory()
        let cloud = try LocalCloud(directory: dir.url, environment: ["CLOUDNOTES_FAULTS": "rate=1;errors=requestRateLimited;retryAfter=2"])
        try cloud.setFaultPlan(.off)
        let heather = try cloud.createAccount(name: "heather")
        #expect(throws: CloudError.requestRateLimited(retryAfter: 2)) { try cloud.database(.private, as: heather).allZones() }
    }

    @Test func aRateFailsThatShareOfRequestsWithTheChosenErrorsReplayably() throws {
        func pattern(seed: UInt64) throws -> [String] {
            let test = try TestCloud(faults: FaultPlan(rate: 0.3, errors: [.serviceUnavailable, .networkUnavailable]), seed: seed)
            let heather = try test.cloud.createAccount(name: "heather")
            let db = test.cloud.database(.private, as: heather)
            return (0..<400).map { _ in
                do {
                    _ = try db.allZones()
                    return "ok"
                } catch {
                    return (error as? CloudError)?.code ?? "other"
                }
            }
        }
        let run = try pattern(seed: 3)
        let failures = run.filter { $0 != "ok" }

        #expect(try pattern(seed: 3) == run)
        #expect(try pattern(seed: 4) != run)
        #expect((80...160).contains(failures.count), "about 30 % of 400 fail, got \(failures.count)")
        #expect(Set(failures) == ["serviceUnavailable", "networkUnavailable"])
    }

    @Test func aLostResponseMayStillHaveCommitted() throws {
        let test = try TestCloud(faults: FaultPlan(rate: 1, errors: [.networkFailure]), seed: 11)
        let heather = try test.cloud.createAccount(name: "heather")
        let db = test.cloud.database(.private, as: heather)
        for i in 0..<20 {
            #expect(throws: CloudError.networkFailure) { try db.save(zone: ZoneID(name: "Z\(i)")) }
        }
        let clean = test.cloud.database(.private, as: heather)
        try test.cloud.setFaultPlan(.off)
        let survived = try test.reopen(faults: .off).database(.private, as: heather).allZones().count
        #expect(survived > 0 && survived < 20, "some requests committed before the response was lost: \(survived)")
        _ = clean
    }

    @Test func planTextParsesAndBadTextIsRefused() throws {
        #expect(try FaultPlan(parsing: "off") == .off)
        #expect(try FaultPlan(parsing: "unreachable") == .unreachable)
        #expect(try FaultPlan(parsing: "rate=0.1;errors=networkFailure,zoneBusy;retryAfter=1.5")
                == FaultPlan(rate: 0.1, errors: [.networkFailure, .zoneBusy], retryAfter: 1.5))
        #expect(try FaultPlan(parsing: "rate=0.5").errors == TransientFault.allCases)
        for bad in ["rate=2", "rate=x", "errors=teapot", "colour=blue", "rate"] {
            #expect(throws: CloudError.self) { try FaultPlan(parsing: bad) }
        }
    }
}
