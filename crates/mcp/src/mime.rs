//! The MIME type of a skill's file, by its extension: what the server declares and what the
//! client reports for a verified file (a server's own claim is not covered by any digest).

/// The MIME type of the file called `name`; `application/octet-stream` when the extension says
/// nothing.
pub(crate) fn mime_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("csv") => "text/csv",
        Some("xml") => "application/xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("pdf") => "application/pdf",
        Some("txt" | "py" | "sh" | "js" | "ps1" | "cs" | "csx") => "text/plain",
        _ => "application/octet-stream",
    }
}
