// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CloudNotes",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cloudnotes", targets: ["cloudnotes"]),
        .library(name: "Cloud", targets: ["Cloud"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(
            name: "Cloud",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "cloudnotes",
            dependencies: [
                "Cloud",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Temporary directories, seeded clouds and a process runner for every test target.
        .target(name: "TestSupport", dependencies: ["Cloud"], path: "Tests/TestSupport"),
        .testTarget(name: "CloudTests", dependencies: ["Cloud", "TestSupport"]),
        // Drives the built `cloudnotes` executable as separate OS processes.
        .testTarget(name: "CLITests", dependencies: ["cloudnotes", "Cloud", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
