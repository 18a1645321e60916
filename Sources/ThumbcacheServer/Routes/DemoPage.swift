import Foundation
import Hummingbird
import ImageDecode

/// `/demo` (with `--demo`): the classic image-loading screen (two image views, a fetch button each,
/// "reset images", "reset cache") as one page with no external assets, loading through this server.
/// Its default sources are two sample photos the server serves itself, so it works with no network.
struct DemoPage: Sendable {
    let endpoints: ThumbcacheEndpoints

    static let samples = ["rocket.jpg": "image/jpeg", "chelsea.png": "image/png"]

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("demo") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: Self.html)))
        }
        router.get("demo/samples/:name") { _, context in
            Self.sample(context.parameters.get("name") ?? "")
        }
        // The page cannot sign (the key stays on the server): it asks for the path of a thumbnail.
        router.get("demo/sign") { request, _ in
            sign(request.uri.queryParameters)
        }
        // Demo-only purge, without the admin token: "reset cache" on the page.
        router.post("demo/purge/:source") { _, context in
            endpoints.purge(encodedSource: context.parameters.get("source") ?? "").response
        }
    }

    func sign(_ query: Parameters) -> Response {
        guard let source = query.get("source"), let size = query.get("size", as: Int.self),
              let fit = query.get("fit").flatMap(FitMode.init(rawValue:)) else {
            return ServeError.badRequest("give source, size and fit (contain or cover)").response
        }
        var path = ThumbnailPath(signature: "", size: size, fit: fit, source: source, format: nil)
        path.signature = endpoints.signer.signature(for: path.signedPart)
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: ServeError.json(["path": path.path, "source": path.encodedSource]))))
    }

    static func sample(_ name: String) -> Response {
        guard let type = samples[name], let directory = samplesDirectory,
              let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
            return ServeError(status: .notFound, code: "not_found", message: "no sample named \(name)").response
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=3600",
                                                .lastModified: "Wed, 25 Nov 2026 00:00:00 GMT"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The resource bundle beside the executable (SwiftPM's layout), found without `Bundle.module`, which
    /// would stop the process when a binary was copied without it.
    static let samplesDirectory: URL? = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [executable, Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()].map {
            $0.appendingPathComponent("thumbcache_ThumbcacheServer.resources/Samples")
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("rocket.jpg").path) }
    }()

    static let html = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <title>thumbcache demo</title>
    <style>
      body { font: 15px system-ui, sans-serif; margin: 2em; color: #222; }
      .slots { display: flex; gap: 2em; flex-wrap: wrap; }
      .slot { width: 300px; }
      .frame { width: 300px; height: 300px; border: 1px solid #aaa; display: flex; align-items: center; justify-content: center; background: #f4f4f4; }
      .slot input[type=text] { width: 100%; box-sizing: border-box; }
      .status { min-height: 1.4em; font-family: ui-monospace, monospace; }
      button { margin: .4em .4em .4em 0; }
    </style>
    </head>
    <body>
    <h1>thumbcache</h1>
    <p>Two image views loading thumbnails through this server. Under each image: how it was served
    (memory, disk, network) and how long the server took, read from the response headers.</p>
    <p>
      <label>size <input id="size" type="number" value="256" min="1" max="2048"></label>
      <label>fit <select id="fit"><option>cover</option><option>contain</option></select></label>
    </p>
    <div class="slots">
      <div class="slot">
        <input id="src1" type="text">
        <div class="frame"><img id="img1" alt=""></div>
        <button id="fetch1">fetch</button>
        <div id="status1" class="status"></div>
      </div>
      <div class="slot">
        <input id="src2" type="text">
        <div class="frame"><img id="img2" alt=""></div>
        <button id="fetch2">fetch</button>
        <div id="status2" class="status"></div>
      </div>
    </div>
    <p><button id="reset-images">reset images</button><button id="reset-cache">reset cache</button></p>
    <script>
    const $ = (id) => document.getElementById(id);
    $("src1").value = location.origin + "/demo/samples/rocket.jpg";
    $("src2").value = location.origin + "/demo/samples/chelsea.png";

    function base64url(text) {
      const bytes = new TextEncoder().encode(text);
      let binary = "";
      for (const b of bytes) binary += String.fromCharCode(b);
      return btoa(binary).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    }

    async function load(slot) {
      const status = $("status" + slot), img = $("img" + slot);
      status.textContent = "loading…";
      status.dataset.served = "";
      const query = new URLSearchParams({ source: $("src" + slot).value, size: $("size").value, fit: $("fit").value });
      const signed = await (await fetch("/demo/sign?" + query)).json();
      if (!signed.path) { status.textContent = "error: " + signed.message; return; }
      const response = await fetch(signed.path, { cache: "no-store" });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({ message: response.statusText }));
        status.textContent = "error " + response.status + ": " + problem.message;
        return;
      }
      const served = response.headers.get("X-Thumbcache");
      const timing = response.headers.get("Server-Timing") || "";
      const total = /total;dur=([0-9.]+)/.exec(timing);
      const blob = await response.blob();
      if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
      img.src = URL.createObjectURL(blob);
      await img.decode();
      status.dataset.served = served;
      status.textContent = served + " in " + (total ? Number(total[1]).toFixed(1) : "?") + " ms";
    }

    $("fetch1").onclick = () => load(1);
    $("fetch2").onclick = () => load(2);
    $("reset-images").onclick = () => {
      for (const slot of [1, 2]) {
        $("img" + slot).removeAttribute("src");
        $("status" + slot).textContent = "";
        $("status" + slot).dataset.served = "";
      }
    };
    $("reset-cache").onclick = async () => {
      for (const slot of [1, 2]) {
        await fetch("/demo/purge/" + base64url($("src" + slot).value), { method: "POST" });
      }
      $("reset-cache").dataset.done = String(Number($("reset-cache").dataset.done || 0) + 1);
    };
    </script>
    </body>
    </html>
    """
}
