import Foundation
import Hummingbird
import ImageDecode

/// `/demo` (with `--demo`): the classic image-loading screen (two image views, a fetch button each,
/// "reset images", "reset cache") as one page with no external assets, loading through this server, and a third
/// panel showing the last fetched source's DiskLru entry as the cache sees it (`DemoEntryView`). The default fit
/// is `contain`, so a fetch stores the original and a ladder thumbnail in that one entry. Every failure (signing,
/// a JSON answer that is not JSON, an image the browser cannot decode, a purge) is shown on the page.
/// Its default sources are sample images the server serves itself (two photos and an SVG), so it works with no
/// network. The format list and the formats named on the page come from `ImageFormat`, never written out here.
struct DemoPage: Sendable {
    let endpoints: ThumbcacheEndpoints

    static let samples = ["rocket.jpg": "image/jpeg", "chelsea.png": "image/png", "logo.svg": "image/svg+xml"]

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
        // Demo-only purges, without the admin token: "reset cache" on the page empties the cache.
        router.post("demo/purge/:source") { _, context in
            endpoints.purge(encodedSource: context.parameters.get("source") ?? "").response
        }
        router.post("demo/purge-all") { _, _ in
            endpoints.purgeAll().response
        }
        router.get("demo/entry") { request, _ in
            entry(request.uri.queryParameters.get("source") ?? "")
        }
    }

    func sign(_ query: Parameters) -> Response {
        guard let source = query.get("source"), let size = query.get("size", as: Int.self),
              let fit = query.get("fit").flatMap(FitMode.init(rawValue:)) else {
            return ServeError.badRequest("give source, size and fit (contain or cover)").response
        }
        // No format (or an empty one): negotiated from the browser's Accept.
        let format = query.get("format").flatMap { $0.isEmpty ? nil : ThumbnailPath.format(named: Substring($0)) }
        if let named = query.get("format"), !named.isEmpty, format == nil {
            return ServeError.badRequest("format must be \(ImageFormat.names(ImageFormat.encodable)), or empty for Accept").response
        }
        var path = ThumbnailPath(signature: "", size: size, fit: fit, source: source, format: format)
        path.signature = endpoints.signer.signature(for: path.signedPart)
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: ServeError.json(["path": path.path, "source": path.encodedSource]))))
    }

    /// The third panel's JSON: the source's entry (`DemoEntryView`).
    func entry(_ text: String) -> Response {
        do throws(ServeError) {
            let source = try ThumbcacheEndpoints.source(text)
            let view: [String: Any]
            do { view = try DemoEntryView(pipeline: endpoints.pipeline).json(for: source) } catch { throw ServeError(error) }
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: ServeError.json(view))))
        } catch {
            return error.response
        }
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

    /// One `<option>` per format thumbnails are written in.
    static let formatOptions = ImageFormat.encodable.map { "<option value=\"\($0.rawValue)\">\($0.rawValue)</option>" }.joined()

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
      .error { color: #b00020; }
      #entry { margin-top: 1.5em; border-top: 1px solid #ccc; padding-top: .5em; }
      #entry table { border-collapse: collapse; font-family: ui-monospace, monospace; font-size: 13px; }
      #entry td, #entry th { border: 1px solid #ddd; padding: .2em .5em; text-align: left; vertical-align: top; }
      #entry pre { background: #f4f4f4; padding: .5em; overflow-x: auto; max-height: 16em; font-size: 12px; }
      #entry-key { font-family: ui-monospace, monospace; word-break: break-all; }
    </style>
    </head>
    <body>
    <h1>thumbcache</h1>
    <p>Two image views loading thumbnails through this server. Under each image: how it was served
    (memory, disk, network) and how long the server took, read from the response headers.</p>
    <p>
      <label>size <input id="size" type="number" value="256" min="1" max="2048"></label>
      <label>fit <select id="fit"><option>contain</option><option>cover</option></select></label>
      <label>format <select id="format"><option value="">auto (Accept)</option>\(formatOptions)</select></label>
    </p>
    <p id="formats">Sources may be \(ImageFormat.names(ImageFormat.decodable)); thumbnails are written as
    \(ImageFormat.names(ImageFormat.encodable)). Try <a href="#" id="svg-sample">the SVG sample</a>.</p>
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
    <p><button id="reset-images">reset images</button><button id="reset-cache">reset cache</button>
      <span id="reset-status" class="status"></span></p>
    <div id="entry">
      <h2>The cache entry</h2>
      <p>The last fetched source's DiskLru entry: its key, each value (index, what it holds, bytes) and the journal
      lines its writes and reads recorded. With fit contain, a ladder size's thumbnails live in the same entry as
      the original.</p>
      <div id="entry-status" class="status">nothing fetched yet</div>
      <div>key: <span id="entry-key"></span></div>
      <table><thead><tr><th>value</th><th>holds</th><th>bytes</th><th>details</th></tr></thead>
        <tbody id="entry-values"></tbody></table>
      <h3>journal</h3>
      <pre id="entry-journal"></pre>
    </div>
    <script>
    const $ = (id) => document.getElementById(id);
    $("src1").value = location.origin + "/demo/samples/rocket.jpg";
    $("src2").value = location.origin + "/demo/samples/chelsea.png";
    $("svg-sample").addEventListener("click", (event) => {
      event.preventDefault();
      $("src1").value = location.origin + "/demo/samples/logo.svg";
    });

    // A failure the page shows where it happened, marked for tests (data-error).
    function showError(element, text) {
      element.textContent = "error: " + text;
      element.classList.add("error");
      element.dataset.error = "1";
    }
    function clearError(element) {
      element.classList.remove("error");
      element.dataset.error = "";
    }

    // A JSON answer, or an error saying what came instead (a proxy's HTML page, a cut body).
    async function json(response, what) {
      const text = await response.text();
      try { return JSON.parse(text); } catch (e) {
        throw new Error(what + " answered " + response.status + " with something that is not JSON: " + text.slice(0, 80));
      }
    }

    let lastSource = null;

    async function load(slot) {
      const status = $("status" + slot), img = $("img" + slot);
      status.textContent = "loading…";
      status.dataset.served = "";
      clearError(status);
      try {
        const query = new URLSearchParams({ source: $("src" + slot).value, size: $("size").value, fit: $("fit").value,
                                            format: $("format").value });
        const signResponse = await fetch("/demo/sign?" + query);
        const signed = await json(signResponse, "signing");
        if (!signResponse.ok || !signed.path) throw new Error("signing failed: " + (signed.message || signResponse.status));
        const response = await fetch(signed.path, { cache: "no-store" });
        if (!response.ok) {
          const problem = await response.json().catch(() => ({ message: response.statusText }));
          throw new Error(response.status + ": " + problem.message);
        }
        const served = response.headers.get("X-Thumbcache");
        const timing = response.headers.get("Server-Timing") || "";
        const total = /total;dur=([0-9.]+)/.exec(timing);
        const blob = await response.blob();
        if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
        img.src = URL.createObjectURL(blob);
        try { await img.decode(); } catch (e) { throw new Error("the browser could not decode the image (" + blob.type + ", " + blob.size + " bytes)"); }
        status.dataset.served = served;
        status.textContent = served + " in " + (total ? Number(total[1]).toFixed(1) : "?") + " ms";
      } catch (e) {
        showError(status, e.message);
      }
      lastSource = $("src" + slot).value;
      await showEntry();
    }

    function cell(row, text) {
      const td = document.createElement("td");
      td.textContent = text;
      row.appendChild(td);
    }

    // The third panel: the last fetched source's entry, read from the server after every fetch and reset.
    async function showEntry() {
      const status = $("entry-status"), values = $("entry-values");
      if (!lastSource) return;
      clearError(status);
      try {
        const response = await fetch("/demo/entry?" + new URLSearchParams({ source: lastSource }), { cache: "no-store" });
        const entry = await json(response, "the entry view");
        if (!response.ok) throw new Error("reading the entry failed: " + entry.message);
        $("entry-key").textContent = entry.key || "";
        values.replaceChildren();
        $("entry-journal").textContent = (entry.journal || []).join("\\n");
        if (!entry.stored) {
          status.textContent = "not in the cache: " + entry.source;
        } else {
          status.textContent = entry.source + (entry.fresh ? " (fresh)" : " (stale)");
          for (const value of entry.values) {
            const row = document.createElement("tr");
            row.className = "value";
            cell(row, String(value.index));
            cell(row, value.name);
            cell(row, String(value.bytes));
            if (value.json) cell(row, JSON.stringify(value.json));
            else if (value.formats) cell(row, value.formats.map((f) => f.format + " " + f.bytes + " B").join(", ") || "(none)");
            else cell(row, value.format + " " + value.width + "x" + value.height);
            row.dataset.bytes = String(value.bytes);
            values.appendChild(row);
          }
        }
        status.dataset.updated = String(Number(status.dataset.updated || 0) + 1);
      } catch (e) {
        showError(status, e.message);
        status.dataset.updated = String(Number(status.dataset.updated || 0) + 1);
      }
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
      const status = $("reset-status");
      clearError(status);
      status.textContent = "purging…";
      try {
        const response = await fetch("/demo/purge-all", { method: "POST" });
        const purged = await json(response, "the purge");
        if (!response.ok) throw new Error("purge failed: " + purged.message);
        status.textContent = "purged " + purged.entries + " entries (" + purged.bytes + " bytes on disk) and "
          + purged.memoryThumbnails + " thumbnails from memory";
      } catch (e) {
        showError(status, e.message);
      }
      await showEntry();
      $("reset-cache").dataset.done = String(Number($("reset-cache").dataset.done || 0) + 1);
    };
    </script>
    </body>
    </html>
    """
}
