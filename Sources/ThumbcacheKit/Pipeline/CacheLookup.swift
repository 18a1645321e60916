/// Which caches a request asks before it settles the origin question. A server asks the memory and the disk itself,
/// without suspending, before it sets up a request's deadline (`memoryHit`, `diskHit`), then calls `result` with
/// `[]` so neither is asked again (nor a second `READ` recorded in the journal).
public struct CacheLookup: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let memory = CacheLookup(rawValue: 1)
    public static let disk = CacheLookup(rawValue: 2)
    public static let all: CacheLookup = [.memory, .disk]
}
