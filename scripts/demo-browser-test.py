#!/usr/bin/env python3
"""Drives `thumbcache serve --demo`'s page in headless Chromium (selenium + Debian's chromium-driver).

The first fetch of each image says network, the second memory; after "reset cache", network again; each
image's naturalWidth/naturalHeight is the requested size (the page asks for 256 px cover: 256x256).
Usage: demo-browser-test.py http://127.0.0.1:PORT. Ends with "demo browser test: N passed, N failed".
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

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


def fetch(slot):
    """Clicks the slot's fetch button and waits for its status line; returns (served, width, height, text)."""
    status = driver.find_element(By.ID, f"status{slot}")
    driver.execute_script("arguments[0].dataset.served = ''; arguments[0].textContent = ''", status)
    driver.find_element(By.ID, f"fetch{slot}").click()
    WebDriverWait(driver, HANG_GUARD).until(lambda d: status.get_attribute("data-served") or "error" in status.text)
    image = driver.find_element(By.ID, f"img{slot}")
    width = driver.execute_script("return arguments[0].naturalWidth", image)
    height = driver.execute_script("return arguments[0].naturalHeight", image)
    return status.get_attribute("data-served"), width, height, status.text


try:
    driver.get(base + "/demo")
    size = int(driver.find_element(By.ID, "size").get_attribute("value"))
    for slot in (1, 2):
        served, width, height, text = fetch(slot)
        check(served == "network", f"image {slot}: first fetch from the network ({text})")
        check((width, height) == (size, size), f"image {slot}: {width}x{height} is the requested {size}x{size}")
        check(" ms" in text, f"image {slot}: the status says how long it took ({text})")
        served, _, _, text = fetch(slot)
        check(served == "memory", f"image {slot}: second fetch from memory ({text})")
    driver.find_element(By.ID, "reset-images").click()
    # Removing src empties the image when the browser gets to it, not necessarily before click() returns.
    emptied = WebDriverWait(driver, HANG_GUARD).until(
        lambda d: d.execute_script("return document.getElementById('img1').naturalWidth") == 0)
    check(emptied, "reset images empties the views")
    driver.find_element(By.ID, "reset-cache").click()
    WebDriverWait(driver, HANG_GUARD).until(lambda d: d.find_element(By.ID, "reset-cache").get_attribute("data-done") == "1")
    for slot in (1, 2):
        served, width, height, text = fetch(slot)
        check(served == "network", f"image {slot}: after reset cache, from the network again ({text})")
        check((width, height) == (size, size), f"image {slot}: {width}x{height} after the reset")
    driver.save_screenshot("/tmp/thumbcache-demo.png")
finally:
    driver.quit()
print(f"demo browser test: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
