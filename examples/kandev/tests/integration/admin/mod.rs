//! The admin page (`GET /admin` on the control listener) of `serve` and
//! `gateway`: over plain HTTP (its login, cookie, CSRF checks, headers and
//! escaping; `http.rs`), and in headless Chromium, logging in and
//! replacing a profile through the forms while an MCP client listens
//! (`browser.rs`).

mod browser;
mod http;

use reqwest::header;

use crate::common::{Server, TOKEN};

/// A login over plain HTTP: the cookie `POST /admin/login` set.
pub(crate) struct Login {
    pub(crate) cookie: String,
}

impl Login {
    /// Logs in to `server`'s admin page with the control token.
    pub(crate) async fn with_token(server: &Server) -> Login {
        let response = no_redirects()
            .post(format!("{}/admin/login", server.control))
            .form(&[("token", TOKEN)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 303);
        let set = response.headers()[header::SET_COOKIE].to_str().unwrap();
        let cookie = set.split(';').next().unwrap().to_owned();
        Login { cookie }
    }

    /// `GET path` with the login's cookie: status and body.
    pub(crate) async fn get(&self, server: &Server, path: &str) -> (u16, String) {
        let response = no_redirects()
            .get(format!("{}{path}", server.control))
            .header(header::COOKIE, &self.cookie)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// `POST path` of `form` with the login's cookie: status and body.
    pub(crate) async fn post(
        &self,
        server: &Server,
        path: &str,
        form: &[(&str, &str)],
    ) -> (u16, String) {
        let response = no_redirects()
            .post(format!("{}{path}", server.control))
            .header(header::COOKIE, &self.cookie)
            .form(form)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// The CSRF token of the login's forms, read from the overview.
    pub(crate) async fn csrf(&self, server: &Server) -> String {
        let (status, page) = self.get(server, "/admin").await;
        assert_eq!(status, 200, "{page}");
        hidden(&page, "csrf")
    }
}

/// The value of the first hidden field `name` on `page`.
pub(crate) fn hidden(page: &str, name: &str) -> String {
    let marker = format!(r#"name="{name}" value=""#);
    let start = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no field {name}"))
        + marker.len();
    let end = start + page[start..].find('"').unwrap();
    // maud escapes `&`, `<`, `>` and `"` in attribute values.
    page[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// An HTTP client that shows redirects instead of following them.
pub(crate) fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}
