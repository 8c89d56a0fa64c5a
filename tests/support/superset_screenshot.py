"""Run in Superset's virtualenv (Selenium comes with Superset): log in to Superset with its web
form, open a page in headless Chromium, wait for an element, save a screenshot, print the title.

Usage: ``superset_screenshot.py URL USER PASSWORD PATH CSS_SELECTOR PICTURE CHROMIUM CHROMEDRIVER``
"""

from __future__ import annotations

import sys
import time

import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait


def main(url: str, user: str, password: str, path: str, selector: str, picture: str,
         chromium: str, chromedriver: str) -> None:  # fmt: skip
    login = requests.Session()
    response = login.post(f"{url}/login/", data={"username": user, "password": password})
    response.raise_for_status()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1200,700"):  # fmt: skip
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        driver.get(f"{url}/health")  # a page of the site first: cookies are set per site
        for cookie in login.cookies:
            driver.add_cookie({"name": cookie.name, "value": cookie.value, "path": "/"})
        driver.get(url + path)
        located = expected_conditions.presence_of_element_located((By.CSS_SELECTOR, selector))
        WebDriverWait(driver, 120).until(located)
        time.sleep(2)  # the chart's entry animation
        driver.save_screenshot(picture)
        print(driver.title)
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:])
