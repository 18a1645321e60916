// The SwiftyNetworkedDataCache seed's example on `DataCache`: a user's profile is fetched once, processed by the
// app's own `processData`, cached under the user's id (not the URL, whose token changes), and the second ask says
// CACHED. Prints `true FETCHED`, then `true CACHED`. The origin is a local one this program starts on 127.0.0.1.
import Foundation
import OriginTestSupport
import ThumbcacheKit

struct Profile: Decodable, Sendable {
    let name: String
}

struct User: CachedDataOwner {
    let id: Int
    /// A signed URL's token, new on every page view: not part of the key.
    let token: String
    let origin: String

    var cacheKey: String { "user-\(id)" }
    var url: URL { URL(string: "\(origin)/users/\(id)/profile.json?token=\(token)")! }

    static func processData(_ data: Data) throws -> Profile? {
        try JSONDecoder().decode(Profile.self, from: data)
    }
}

let origin = try OriginServer()
for token in ["a1", "b2"] {
    origin.route("/users/42/profile.json?token=\(token)") { _ in
        .respond(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")],
                 body: Data(#"{"name":"Ada"}"#.utf8))
    }
}

// The default policy refuses loopback and private addresses (URLs may come from users); this origin is local.
var configuration = DataCacheConfiguration()
configuration.sourcePolicy.allowLoopback = true
let cache = DataCache<User>(maxCount: 20, configuration: configuration)

let (profile, outcome) = await cache.fetchData(for: User(id: 42, token: "a1", origin: origin.url("")))
print(profile != nil, outcome)
let (again, secondOutcome) = await cache.fetchData(for: User(id: 42, token: "b2", origin: origin.url("")))
print(again != nil, secondOutcome)

await cache.close()
origin.shutdown()
