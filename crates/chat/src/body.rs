//! Reading a response body without ever holding more than a cap.

use reqwest::Response;

/// Why a body could not be read.
pub(crate) enum BodyError {
    /// The body is longer than the cap (announced or found while reading).
    TooLarge,
    /// The transfer failed.
    Transport(reqwest::Error),
}

/// Reads `response`'s body chunk by chunk, failing as soon as it would pass `limit` bytes; a
/// `Content-Length` past the limit fails before anything is read.
pub(crate) async fn read_capped(
    response: &mut Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    let announced = response.content_length();
    if announced.is_some_and(|length| length > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    // The announced length sizes the buffer only up to the cap, so a lie costs nothing.
    let mut body = Vec::with_capacity(announced.map_or(0, |length| length as usize).min(limit));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        if chunk.len() > limit - body.len() {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
