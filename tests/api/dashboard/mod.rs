//! The dashboard in a real browser: headless Chromium driven through chromedriver
//! (WebDriver), against the real server, PostgreSQL, Redis and the fake GitLab and AI.
//! Every page visited must leave no JavaScript error in the console.

mod browser;
mod conversations;
mod flows;
mod forms;
mod learnings;
mod live;
mod tools;
