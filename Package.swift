// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CloudNotes",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cloudnotes", targets: ["cloudnotes"]),
        .executable(name: "cloudnotes-sim", targets: ["cloudnotes-sim"]),
        .executable(name: "cloudnotes-bench", targets: ["cloudnotes-bench"]),
        .executable(name: "cloudnotes-soak", targets: ["cloudnotes-soak"]),
        .library(name: "Cloud", targets: ["Cloud"]),
        .library(name: "Sync", targets: ["Sync"]),
        .library(name: "Notes", targets: ["Notes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The server and the remote client only (see CloudServer, CloudClient): each adds minutes to a cold build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        // Hummingbird's own (HTTP parts in the server's pipeline, for `ConnectionGuard`): no more to build.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The cloud's storage on PostgreSQL (CloudPostgres): the server and the console only.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The few statements run once per record of a sync, bound and read through SQLite's C API.
        .target(
            name: "SQLiteDirect",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "Cloud",
            dependencies: [
                "SQLiteDirect",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "Sync", dependencies: ["Cloud"]),
        // The cloud's wire protocol (CloudKit Web Services' JSON, paths and request signatures): pure Swift, no networking,
        // shared by the server and the remote client.
        .target(name: "CloudWire", dependencies: ["Cloud", .product(name: "Crypto", package: "swift-crypto")]),
        // `cloudnotes cloud serve`: the cloud in a directory over HTTP (Hummingbird), signed requests, long-polled pushes.
        .target(
            name: "CloudServer",
            dependencies: [
                "Cloud", "CloudWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // The cloud's storage on PostgreSQL (`--store postgresql://…`), behind `Cloud`'s storage seam.
        .target(
            name: "CloudPostgres",
            dependencies: [
                "Cloud",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The cloud on a server, as a `Cloud`: AsyncHTTPClient, every request signed with the device's key.
        .target(
            name: "CloudClient",
            dependencies: [
                "Cloud", "CloudWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Notes",
            dependencies: [
                "Sync", "Cloud", "SQLiteDirect",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // ncurses, wrapped for Swift 6 (see Sources/CNcurses/shim.h).
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses", pkgConfig: "ncursesw",
                       providers: [.apt(["libncursesw5-dev"])]),
        // The front end's state, commands and screens: pure, drawn into a grid and tested as text.
        .target(name: "FrontEnd", dependencies: ["Notes", "Sync", "Cloud"]),
        // The front end on a real terminal: ncurses, the event loop, $EDITOR, the clipboard.
        .target(name: "Terminal", dependencies: ["FrontEnd", "Notes", "CNcurses"]),
        // An in-memory app over the sync core, and a seeded simulation of many devices.
        .target(name: "SyncSimulation", dependencies: ["Sync", "Cloud"]),
        // The same simulation at the app's level: posts, notebooks, comments, shares over real device stores.
        .target(
            name: "NotesSimulation",
            dependencies: ["Notes", "SyncSimulation", "Sync", "Cloud", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(
            name: "cloudnotes-sim",
            dependencies: [
                "SyncSimulation", "NotesSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "cloudnotes",
            dependencies: [
                "Cloud", "Sync", "Notes", "FrontEnd", "Terminal", "CloudWire", "CloudServer", "CloudClient", "CloudPostgres",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks that print figures (run in release mode).
        .executableTarget(
            name: "cloudnotes-bench",
            dependencies: [
                "Cloud", "Sync", "Notes", "FrontEnd", "Terminal", "CloudClient", "CloudPostgres", "CloudWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Many processes, faults and SIGKILLs against one cloud; then checks that nothing was lost.
        .executableTarget(
            name: "cloudnotes-soak",
            dependencies: [
                "Cloud", "Sync", "Notes", "CloudClient", "CloudPostgres",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Temporary directories, seeded clouds and a process runner for every test target.
        .target(name: "TestSupport", dependencies: ["Cloud", "CloudClient", "CloudPostgres"], path: "Tests/TestSupport"),
        .testTarget(name: "CloudTests", dependencies: ["Cloud", "CloudPostgres", "SyncSimulation", "TestSupport"]),
        // The server as its own process, reached over loopback: who may call, and devices syncing through it.
        .testTarget(name: "ServerTests", dependencies: [
            "cloudnotes", "Cloud", "CloudWire", "CloudClient", "CloudPostgres", "Notes", "Sync", "SyncSimulation", "TestSupport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], exclude: ["ThirdParty"]),
        .testTarget(name: "CloudWireTests", dependencies: ["CloudWire", "Cloud", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "SyncTests", dependencies: ["Sync", "SyncSimulation", "Cloud", "TestSupport"]),
        .testTarget(name: "FrontEndTests", dependencies: ["FrontEnd", "Terminal", "Notes", "Cloud", "TestSupport"]),
        .testTarget(name: "NotesTests", dependencies: [
            "Notes", "NotesSimulation", "Sync", "Cloud", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Drives the built `cloudnotes` executable as separate OS processes.
        .testTarget(name: "CLITests", dependencies: [
            "cloudnotes", "cloudnotes-sim", "Cloud", "Notes", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
