#!/usr/bin/env python3
"""Drives `thumbcache serve --demo`'s page in headless Chromium (selenium + Debian's chromium-driver).

The first fetch of each image says network, the second memory; after "reset cache", network again; each
image's longest side is the requested size (the page asks for 256 px contain). After a fetch, the third panel
shows the entry as the cache holds it: a 64-hex DiskLru key, at least three values with byte counts (metadata,
original, the 256 px thumbnails) and journal lines naming the key; "reset cache" says what it purged and the
panel then says the source is not cached. The format select lists the formats thumbnails are written in (from
ImageFormat, as the page's line of formats); WebP chosen is what the entry then holds; the SVG sample is drawn at
the requested size. One error path: a source the origin answers 404 shows its error.
Usage: demo-browser-test.py http://127.0.0.1:PORT. Ends with "demo browser test: N passed, N failed".
"""
import re
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

base = sys.argv[1]
options = webdriver.ChromeOptions()
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
    options.add_argument(argument)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
passed = failed = 0
# Waits end on what the page shows; the bound only guards against a hang (a render on a busy machine may take
# long), so it is generous and no verdict depends on it.
HANG_GUARD = 300


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
        print("ok  ", what)
    else:
        failed += 1
        print("FAIL", what)


def entry_updates():
    return int(driver.find_element(By.ID, "entry-status").get_attribute("data-updated") or 0)


def wait_for_entry_update(before):
    WebDriverWait(driver, HANG_GUARD).until(lambda d: entry_updates() > before)


def fetch(slot):
    """Clicks the slot's fetch button and waits for its status line and the entry panel after it; returns
    (served, width, height, text)."""
    status = driver.find_element(By.ID, f"status{slot}")
    driver.execute_script("arguments[0].dataset.served = ''; arguments[0].textContent = ''", status)
    before = entry_updates()
    driver.find_element(By.ID, f"fetch{slot}").click()
    WebDriverWait(driver, HANG_GUARD).until(lambda d: status.get_attribute("data-served") or "error" in status.text)
    wait_for_entry_update(before)
    image = driver.find_element(By.ID, f"img{slot}")
    width = driver.execute_script("return arguments[0].naturalWidth", image)
    height = driver.execute_script("return arguments[0].naturalHeight", image)
    return status.get_attribute("data-served"), width, height, status.text


def check_entry(slot):
    """The third panel shows a real multi-value entry for the source just fetched."""
    key = driver.find_element(By.ID, "entry-key").text
    check(re.fullmatch(r"[0-9a-f]{64}", key) is not None, f"image {slot}: the panel shows the DiskLru key ({key})")
    rows = driver.find_elements(By.CSS_SELECTOR, "#entry-values tr.value")
    sized = [row for row in rows if int(row.get_attribute("data-bytes") or 0) > 0]
    names = [row.find_elements(By.TAG_NAME, "td")[1].text for row in sized]
    check(len(sized) >= 3 and names[:2] == ["metadata", "original"] and f"{size} px" in names,
          f"image {slot}: at least 3 values with bytes, metadata, original and {size} px ({names})")
    thumbnails = [row for row in sized if row.find_elements(By.TAG_NAME, "td")[1].text == f"{size} px"]
    details = thumbnails[0].find_elements(By.TAG_NAME, "td")[3].text if thumbnails else ""
    check(re.search(r"(jpeg|png|webp|avif) [0-9]+ B", details) is not None,
          f"image {slot}: the {size} px value lists its formats with byte counts ({details})")
    journal = driver.find_element(By.ID, "entry-journal").text.splitlines()
    check(any(line.startswith("CLEAN " + key + " ") for line in journal) and all(key in line for line in journal),
          f"image {slot}: the journal lines of the entry ({len(journal)} lines, e.g. {journal[:1]})")


try:
    driver.get(base + "/demo")
    size = int(driver.find_element(By.ID, "size").get_attribute("value"))
    check(driver.find_element(By.ID, "fit").get_attribute("value") == "contain", "the default fit is contain")
    for slot in (1, 2):
        served, width, height, text = fetch(slot)
        check(served == "network", f"image {slot}: first fetch from the network ({text})")
        check(max(width, height) == size, f"image {slot}: {width}x{height} has the requested longest side {size}")
        check(" ms" in text, f"image {slot}: the status says how long it took ({text})")
        check_entry(slot)
        served, _, _, text = fetch(slot)
        check(served == "memory", f"image {slot}: second fetch from memory ({text})")
    driver.find_element(By.ID, "reset-images").click()
    # Removing src empties the image when the browser gets to it, not necessarily before click() returns.
    emptied = WebDriverWait(driver, HANG_GUARD).until(
        lambda d: d.execute_script("return document.getElementById('img1').naturalWidth") == 0)
    check(emptied, "reset images empties the views")
    driver.find_element(By.ID, "reset-cache").click()
    WebDriverWait(driver, HANG_GUARD).until(lambda d: d.find_element(By.ID, "reset-cache").get_attribute("data-done") == "1")
    purged = driver.find_element(By.ID, "reset-status").text
    check(re.match(r"purged 2 entries \([1-9][0-9]* bytes on disk\)", purged) is not None,
          f"reset cache says what it purged ({purged})")
    entry_status = driver.find_element(By.ID, "entry-status").text
    check(entry_status.startswith("not in the cache") and not driver.find_elements(By.CSS_SELECTOR, "#entry-values tr.value"),
          f"after reset cache the panel shows the entry gone ({entry_status})")
    for slot in (1, 2):
        served, width, height, text = fetch(slot)
        check(served == "network", f"image {slot}: after reset cache, from the network again ({text})")
        check(max(width, height) == size, f"image {slot}: {width}x{height} after the reset")
    check_entry(2)
    # Formats: the select and the page's line come from ImageFormat.
    choices = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#format option")]
    check(choices[:1] == [""] and {"jpeg", "png", "webp", "avif"} <= set(choices),
          f"the format select offers Accept and every written format ({choices})")
    formats_line = driver.find_element(By.ID, "formats").text
    check("svg" in formats_line and "avif" in formats_line, f"the page names the formats read and written ({formats_line})")
    Select(driver.find_element(By.ID, "format")).select_by_visible_text("webp")
    _, width, height, text = fetch(2)
    check(max(width, height) == size, f"image 2 as webp: {width}x{height} ({text})")
    values = driver.find_elements(By.CSS_SELECTOR, "#entry-values tr.value")
    details = " ".join(row.find_elements(By.TAG_NAME, "td")[3].text for row in values
                       if row.find_elements(By.TAG_NAME, "td")[1].text == f"{size} px")
    check(re.search(r"webp [0-9]+ B", details) is not None, f"the entry holds the webp thumbnail ({details})")
    Select(driver.find_element(By.ID, "format")).select_by_value("")
    driver.find_element(By.ID, "svg-sample").click()
    served, width, height, text = fetch(1)
    check(served == "network" and max(width, height) == size, f"the SVG sample is drawn at {width}x{height} ({text})")
    # An error path: a source the origin does not have.
    source = driver.find_element(By.ID, "src1")
    source.clear()
    source.send_keys(base + "/demo/samples/missing.jpg")
    served, _, _, text = fetch(1)
    status = driver.find_element(By.ID, "status1")
    check(status.get_attribute("data-error") == "1" and text.startswith("error: 404") and "error" in status.get_attribute("class"),
          f"a missing source's error is shown ({text})")
    check(driver.find_element(By.ID, "entry-status").text.startswith("not in the cache"),
          "the panel says the failed source is not cached")
    driver.save_screenshot("/tmp/thumbcache-demo.png")
finally:
    driver.quit()
print(f"demo browser test: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
