//! `rehydrate mcp`: a Model Context Protocol server on stdio (docs/MCP.md) serving the agent
//! intrinsics `expand_reduction`, `sidecar_search` and `list_reductions` over one session, so an
//! agent that loads tools over MCP (Claude Code, Codex, Gemini CLI) reaches what was reduced.
//!
//! The session is a `rehydrate reduce` directory (`--session`), read once and checked against
//! its manifest, or a transcript file (`--transcript`) reduced in memory with a preset and read
//! again before a call when it has grown: the messages past those already fed go to the same
//! reducer (a file that changed otherwise is read whole again). The server reads only that
//! file or directory (no tool argument names a path), writes nothing, logs to stderr, and ends
//! when its input ends. The tools are the intrinsics themselves
//! (`rehydrate::intrinsics::Intrinsics::call`): the same validation, the same results, a bad
//! call a tool error the model reads.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rehydrate::formats::Format;
use rehydrate::intrinsics::{
    CallContext, Intrinsics, ToolFormat, list_reductions_definition, tool_definitions,
};
use rehydrate::reduce::{Reducer, ReductionPolicy};
use rehydrate::sidecar::{Sources, VerifiedCache};
use rehydrate::store::SessionDir;
use rehydrate::{Message, ReductionLog};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::failure::Failure;

/// What the model is told first, in each tool's description, over MCP.
const PREAMBLE: &str = "This tool reaches the full history of this session, including what the agent's own compaction or truncation removed from your context: the exact original bytes, verified. ";

/// Where the session comes from.
pub(crate) enum Source {
    /// A `rehydrate reduce` directory.
    Session(PathBuf),
    /// A transcript file, reduced in memory with `policy`.
    Transcript {
        path: PathBuf,
        format: Option<Format>,
        policy: Box<ReductionPolicy>,
    },
}

/// The session the tools answer from.
enum Loaded {
    Dir {
        log: ReductionLog,
        sidecar: Vec<Message>,
        /// What `sidecar_search` verified of the sidecar, which never changes.
        verified: VerifiedCache,
    },
    Live(Box<Live>),
}

/// A transcript reduced in memory, and how much of the file it has read.
struct Live {
    path: PathBuf,
    format: Option<Format>,
    policy: ReductionPolicy,
    reducer: Reducer,
    /// The bytes read when the reducer was last fed.
    bytes: Vec<u8>,
    /// The file's length and modification time when it was last read: a call that finds them
    /// the same reads nothing.
    stamp: Option<(u64, Option<SystemTime>)>,
    /// What `sidecar_search` verified of the reducer's history, kept while the history only
    /// grows.
    verified: VerifiedCache,
}

/// The bytes before the old end of a grown file compared with what was read, to tell an
/// append from a rewrite without reading the file again.
const APPEND_CHECK_BYTES: u64 = 4096;

impl Live {
    fn open(
        path: PathBuf,
        format: Option<Format>,
        policy: ReductionPolicy,
    ) -> Result<Live, Failure> {
        let mut live = Live {
            path,
            format,
            reducer: Reducer::new(policy.clone()),
            policy,
            bytes: Vec::new(),
            stamp: None,
            verified: VerifiedCache::default(),
        };
        live.refresh()?;
        Ok(live)
    }

    /// The file's bytes now: only what was appended is read when the file grew and its bytes
    /// before the old end still end as read; otherwise the whole file.
    fn read_now(&mut self, len: u64) -> Result<(Vec<u8>, bool), Failure> {
        let old = self.bytes.len() as u64;
        if old > 0 && len > old {
            let appended = (|| -> std::io::Result<Option<Vec<u8>>> {
                let mut file = std::fs::File::open(&self.path)?;
                let check = APPEND_CHECK_BYTES.min(old);
                file.seek(SeekFrom::Start(old - check))?;
                let mut tail = vec![0; check as usize];
                file.read_exact(&mut tail)?;
                if tail[..] != self.bytes[(old - check) as usize..] {
                    return Ok(None);
                }
                let mut rest = Vec::new();
                file.read_to_end(&mut rest)?;
                Ok(Some(rest))
            })();
            if let Ok(Some(rest)) = appended {
                let mut bytes = std::mem::take(&mut self.bytes);
                bytes.extend_from_slice(&rest);
                return Ok((bytes, true));
            }
        }
        Ok((crate::load::read(&self.path)?, false))
    }

    /// Reads the file again when it changed: the messages past those fed go to the reducer;
    /// when the earlier ones changed too, it starts over.
    fn refresh(&mut self) -> Result<(), Failure> {
        let meta = std::fs::metadata(&self.path)
            .map_err(|e| Failure::Input(format!("{}: cannot read: {e}", self.path.display())))?;
        let stamp = (meta.len(), meta.modified().ok());
        if self.stamp == Some(stamp) {
            return Ok(());
        }
        let old_len = self.bytes.len();
        let (bytes, appended) = self.read_now(meta.len())?;
        if bytes == self.bytes {
            self.stamp = Some(stamp);
            return Ok(());
        }
        let imported =
            match rehydrate::formats::import(crate::load::name(&self.path), &bytes, self.format) {
                Ok(imported) => imported,
                Err(e) => {
                    // Keep what was read (an append is put back) so the next call retries.
                    if appended {
                        let mut bytes = bytes;
                        bytes.truncate(old_len);
                        self.bytes = bytes;
                    }
                    return Err(e.into());
                }
            };
        let fed = self.reducer.history().len();
        let grown =
            imported.messages.len() >= fed && imported.messages[..fed] == *self.reducer.history();
        if !grown {
            self.reducer = Reducer::new(self.policy.clone());
            self.verified.clear();
        }
        let start = self.reducer.history().len();
        let added = imported.messages.len() - start;
        // Not closed: a call still waiting for its result (the agent's call of this very tool)
        // is answered by the next lines, so no unanswered-call repair is minted for it.
        self.reducer
            .project(imported.messages.into_iter().skip(start));
        eprintln!(
            "rehydrate mcp: {}: {} messages ({added} new{}), {} reductions",
            self.path.display(),
            self.reducer.history().len(),
            match (grown, appended) {
                (true, true) => ", appended bytes read",
                (true, false) => "",
                (false, _) => ", history changed: reduced again",
            },
            self.reducer.log().len()
        );
        self.bytes = bytes;
        self.stamp = Some(stamp);
        Ok(())
    }
}

impl Loaded {
    fn open(source: Source) -> Result<Loaded, Failure> {
        match source {
            Source::Session(dir) => {
                let loaded = SessionDir::open(&dir)?;
                loaded.refuse_mismatched()?;
                eprintln!(
                    "rehydrate mcp: {}: {} messages, {} reductions",
                    dir.display(),
                    loaded.sidecar.len(),
                    loaded.log.len()
                );
                Ok(Loaded::Dir {
                    log: loaded.log,
                    sidecar: loaded.sidecar,
                    verified: VerifiedCache::default(),
                })
            }
            Source::Transcript {
                path,
                format,
                policy,
            } => Live::open(path, format, *policy).map(|live| Loaded::Live(Box::new(live))),
        }
    }

    /// Answers one call, after reading a grown transcript.
    fn call(&mut self, name: &str, arguments: &str) -> rehydrate::ToolResult {
        match self {
            Loaded::Dir {
                log,
                sidecar,
                verified,
            } => {
                let context = CallContext {
                    log,
                    sources: Sources::minted(sidecar),
                };
                Intrinsics::call_cached(name, arguments, &context, verified)
            }
            Loaded::Live(live) => {
                if let Err(e) = live.refresh() {
                    // The file could not be read again: answer from what was read.
                    for line in e.lines() {
                        eprintln!("rehydrate mcp: {line}");
                    }
                }
                let context = CallContext::new(live.reducer.log(), live.reducer.history());
                Intrinsics::call_cached(name, arguments, &context, &mut live.verified)
            }
        }
    }
}

/// The MCP server.
#[derive(Clone)]
struct Server {
    session: Arc<Mutex<Loaded>>,
    tools: Arc<Vec<Tool>>,
}

/// The three tools as MCP tools: name, the intrinsic's description after [`PREAMBLE`], and its
/// parameter schema.
fn tools() -> Vec<Tool> {
    let mut defs = tool_definitions(ToolFormat::Anthropic);
    defs.push(list_reductions_definition(ToolFormat::Anthropic));
    defs.into_iter()
        .filter_map(|d| {
            let name = d["name"].as_str()?.to_owned();
            let description = format!("{PREAMBLE}{}", d["description"].as_str()?);
            let schema = d["input_schema"].as_object()?.clone();
            Some(Tool::new(name, description, Arc::new(schema)))
        })
        .collect()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rehydrate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
            "rehydrate: the full history of this session, reduced and verified. Use list_reductions to see what is there, sidecar_search to find text in it, expand_reduction to get an original back.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments =
            serde_json::Value::Object(request.arguments.unwrap_or_default()).to_string();
        let result = match self.session.lock() {
            Ok(mut session) => session.call(&request.name, &arguments),
            Err(_) => {
                return Err(ErrorData::internal_error(
                    "the session is unavailable",
                    None,
                ));
            }
        };
        let content = vec![ContentBlock::text(result.content)];
        Ok(if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// Runs the server on stdin and stdout until the client closes stdin.
pub(crate) fn run(source: Source) -> Result<(), Failure> {
    let session = Loaded::open(source)?;
    let server = Server {
        session: Arc::new(Mutex::new(session)),
        tools: Arc::new(tools()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Input(format!("rehydrate mcp: cannot start: {e}")))?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Failure::Input(format!("rehydrate mcp: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Failure::Input(format!("rehydrate mcp: {e}")))?;
        eprintln!("rehydrate mcp: the client closed the connection");
        Ok(())
    })
}
