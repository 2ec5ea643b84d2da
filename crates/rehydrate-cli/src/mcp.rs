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

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rehydrate::formats::Format;
use rehydrate::intrinsics::{
    CallContext, Intrinsics, ToolFormat, list_reductions_definition, tool_definitions,
};
use rehydrate::reduce::{Reducer, ReductionPolicy};
use rehydrate::sidecar::Sources;
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
}

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
        };
        live.refresh()?;
        Ok(live)
    }

    /// Reads the file again when it changed: the messages past those fed go to the reducer;
    /// when the earlier ones changed too, it starts over.
    fn refresh(&mut self) -> Result<(), Failure> {
        let bytes = crate::load::read(&self.path)?;
        if bytes == self.bytes {
            return Ok(());
        }
        let imported =
            rehydrate::formats::import(crate::load::name(&self.path), &bytes, self.format)?;
        let fed = self.reducer.history().len();
        let grown = bytes.starts_with(&self.bytes)
            && imported.messages.len() >= fed
            && imported.messages[..fed] == *self.reducer.history();
        if !grown {
            self.reducer = Reducer::new(self.policy.clone());
        }
        let start = self.reducer.history().len();
        let added = imported.messages.len() - start;
        self.reducer
            .project(imported.messages.into_iter().skip(start));
        self.reducer.close();
        eprintln!(
            "rehydrate mcp: {}: {} messages ({added} new{}), {} reductions",
            self.path.display(),
            self.reducer.history().len(),
            if grown { "" } else { ", read whole" },
            self.reducer.log().len()
        );
        self.bytes = bytes;
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
            Loaded::Dir { log, sidecar } => {
                let context = CallContext {
                    log,
                    sources: Sources::minted(sidecar),
                };
                Intrinsics::call(name, arguments, &context)
            }
            Loaded::Live(live) => {
                if let Err(e) = live.refresh() {
                    // The file could not be read again: answer from what was read.
                    for line in e.lines() {
                        eprintln!("rehydrate mcp: {line}");
                    }
                }
                let context = CallContext::new(live.reducer.log(), live.reducer.history());
                Intrinsics::call(name, arguments, &context)
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
