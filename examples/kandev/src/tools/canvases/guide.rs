//! The canvas-authoring guide bundle `read_canvas_authoring_skill_kandev`
//! serves: a short guide and the files it points to, by path. Only these
//! paths can be read; nothing is looked up on disk.

/// The bundle's version, answered with every read.
pub(super) const VERSION: &str = "v1";

/// The guide itself, served when no path is asked for.
pub(super) const GUIDE: &str = "SKILL.md";

/// Every file of the bundle: (path, content).
pub(super) const FILES: &[(&str, &str)] = &[
    (
        GUIDE,
        "# Authoring a Kandev canvas\n\n\
         1. create_canvas_kandev gives a draft canvas and its source folder.\n\
         2. Write the app into that folder, starting from scaffold/index.html.\n\
         3. Read data, state, actions and events from the relative ./_kandev/v1 paths;\n   \
            Kandev's own data stays the source of truth.\n\
         4. Keep only app-specific shared state in the canvas state\n   \
            (get_canvas_state_kandev, set_canvas_state_kandev with expected_revision).\n\
         5. publish_canvas_kandev with the source folder makes it the live release.\n\n\
         References: reference/browser-api.md, reference/manifest.md, reference/state.md.\n",
    ),
    (
        "reference/browser-api.md",
        "# Browser API\n\nThe canvas runs in an opaque-origin frame: no browser storage, no \
         network beyond ./_kandev/v1. Keep temporary values in memory.\n",
    ),
    (
        "reference/manifest.md",
        "# Manifest\n\ncanvas.json names the entry file and the data the canvas reads; a \
         release asking for more than it was granted waits for a person's approval.\n",
    ),
    (
        "reference/state.md",
        "# Shared state\n\nOne JSON value per key. Every write moves the revision on; pass \
         the revision you read as expected_revision to refuse a stale write.\n",
    ),
    (
        "scaffold/index.html",
        "<!doctype html>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"stylesheet\" href=\"./_kandev/v1/canvas.css\">\n<main id=\"app\"></main>\n",
    ),
    (
        "scaffold/canvas.json",
        "{ \"entry\": \"index.html\", \"reads\": [\"task\"] }\n",
    ),
];

/// The scaffold's files, as paths under a canvas's source folder.
pub(super) fn scaffold() -> impl Iterator<Item = &'static str> {
    FILES
        .iter()
        .filter_map(|(path, _)| path.strip_prefix("scaffold/"))
}
