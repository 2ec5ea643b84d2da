//! The importers: a session file of each format as raw bytes, and generated sessions written
//! in every exported format and read back.

use std::path::Path;

use arbitrary::Unstructured;
use rehydrate::ReductionPolicy;
use rehydrate::formats::{ExportFormat, Format, import, import_events, write};
use rehydrate::replay::file_records;

use crate::check::{messages_are_canonical, projection_keeps_its_promises};
use crate::generate;

/// Reads `data` as a session file of `format`. A file it refuses is fine; one it reads gives
/// messages the model crate accepts, whose projection keeps its promises, that transcript
/// replay walks, and whose event log (where the format has one) folds.
pub(crate) fn as_format(format: Format, data: &[u8]) {
    let path = Path::new("fuzz-input");
    let Ok(imported) = import(path, data, Some(format)) else {
        return;
    };
    assert_eq!(imported.format, format);
    messages_are_canonical(&imported.messages);
    projection_keeps_its_promises(&imported.messages, &ReductionPolicy::aggressive(), &[]);
    let _ = file_records(&imported.messages);
    if let Ok(events) = import_events(path, data, Some(format)) {
        rehydrate::model::fold_surface(&events.events).expect("an imported event log folds");
    }
}

/// The format a written body is read back as.
fn read_back_as(format: ExportFormat) -> Format {
    match format {
        ExportFormat::Jsonl | ExportFormat::OpenAi => Format::OpenAi,
        ExportFormat::Anthropic => Format::Anthropic,
        ExportFormat::Responses => Format::Responses,
        ExportFormat::Codex => Format::Codex,
        ExportFormat::GeminiCli => Format::GeminiCli,
        ExportFormat::Goose => Format::Goose,
    }
}

/// A generated session, written in each exported format: each importer reads what the writers
/// accept and write (a writer refuses a session breaking its API's rules), as messages the
/// model crate accepts.
pub(crate) fn structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(messages) = generate::session(&mut u, 4) else {
        return;
    };
    for format in ExportFormat::ALL {
        if format == ExportFormat::Jsonl {
            // Canonical JSONL is the store's form, not a session format an importer reads.
            continue;
        }
        let Ok(bytes) = write(&messages, format) else {
            continue;
        };
        let read = read_back_as(format);
        let imported = import(Path::new("fuzz-input"), &bytes, Some(read))
            .unwrap_or_else(|e| panic!("{format}: what the writer wrote does not import: {e}"));
        messages_are_canonical(&imported.messages);
    }
}
