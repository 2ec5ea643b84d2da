//! Text for a terminal: session-controlled strings (record types, ids, paths, snippets) are
//! escaped before they reach stdout or stderr, so they cannot drive the terminal. Every line
//! the CLI prints that quotes session text goes through [`push_printable`] or [`shown`], which
//! are the store's (`rehydrate::store::show`), so the CLI's lines and the store's errors escape
//! alike.

pub(crate) use rehydrate::store::show::{json_path, printable, push_printable, shown};
