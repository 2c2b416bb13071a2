//! An OTLP trace receiver on 127.0.0.1 (feature `otlp`): OTLP/HTTP (`POST /v1/traces`, protobuf)
//! or OTLP/gRPC (`TraceService/Export`), each request decoded with the protocol's own protobuf
//! definitions (`opentelemetry-proto`) and kept for the test to look at.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message as _;

pub use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

/// The variables, besides `OTEL_EXPORTER_OTLP_ENDPOINT`, that decide where spans go and whether
/// they go at all: a developer's own settings, which a process pointed at an [`OtlpReceiver`]
/// must not inherit.
pub const EXPORT_VARIABLES: [&str; 5] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_TRACES_EXPORTER",
    "OTEL_SDK_DISABLED",
];

/// One span as it arrived, with the service that sent it.
#[derive(Debug, Clone)]
pub struct ReceivedSpan {
    /// The resource's `service.name`.
    pub service: Option<String>,
    /// The span, decoded.
    pub span: opentelemetry_proto::tonic::trace::v1::Span,
}

impl ReceivedSpan {
    /// The span's name.
    pub fn name(&self) -> &str {
        &self.span.name
    }

    /// The span's kind.
    pub fn kind(&self) -> SpanKind {
        self.span.kind()
    }

    /// The value of attribute `key` as text (strings as they are, numbers and booleans
    /// written out); `None` when the span has no such attribute.
    pub fn attribute(&self, key: &str) -> Option<String> {
        attribute(&self.span.attributes, key)
    }

    /// Whether `parent` is this span's parent (same trace, its span id as parent id).
    pub fn is_child_of(&self, parent: &ReceivedSpan) -> bool {
        self.span.trace_id == parent.span.trace_id
            && self.span.parent_span_id == parent.span.span_id
    }
}

fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    Some(match value.value.as_ref()? {
        AnyValue::StringValue(text) => text.clone(),
        AnyValue::IntValue(n) => n.to_string(),
        AnyValue::DoubleValue(n) => n.to_string(),
        AnyValue::BoolValue(b) => b.to_string(),
        other => format!("{other:?}"),
    })
}

/// The spans received, and their count sent to whoever waits for spans.
#[derive(Debug)]
struct Spans {
    spans: Mutex<Vec<ReceivedSpan>>,
    count: tokio::sync::watch::Sender<usize>,
}

impl Default for Spans {
    fn default() -> Self {
        Self {
            spans: Mutex::default(),
            count: tokio::sync::watch::Sender::new(0),
        }
    }
}

type Received = Arc<Spans>;

/// A receiver of OTLP traces on a free port of 127.0.0.1, running until dropped.
#[derive(Debug)]
pub struct OtlpReceiver {
    endpoint: String,
    received: Received,
    task: tokio::task::JoinHandle<()>,
}

impl OtlpReceiver {
    /// An OTLP/HTTP receiver (`POST /v1/traces`, `application/x-protobuf`).
    ///
    /// # Panics
    /// When no port can be bound (the test cannot run).
    pub async fn http() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("a bound address");
        let received = Received::default();
        let router = Router::new()
            .route("/v1/traces", post(export_http))
            .with_state(Arc::clone(&received));
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.expect("serve");
        });
        Self {
            endpoint: format!("http://{address}"),
            received,
            task,
        }
    }

    /// An OTLP/gRPC receiver (`opentelemetry.proto.collector.trace.v1.TraceService`).
    ///
    /// # Panics
    /// When no port can be bound (the test cannot run).
    pub async fn grpc() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("a bound address");
        let received = Received::default();
        let service = TraceServiceServer::new(Grpc(Arc::clone(&received)));
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        let task = tokio::spawn(async move {
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming)
                .await
                .expect("serve");
        });
        Self {
            endpoint: format!("http://{address}"),
            received,
            task,
        }
    }

    /// The base URL for `OTEL_EXPORTER_OTLP_ENDPOINT`, e.g. `http://127.0.0.1:40123`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Every span received so far, in order of arrival.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.received.spans.lock().expect("not poisoned").clone()
    }

    /// Every span received, in order of arrival, once there are at least `count` (woken by
    /// their arrival), or when `bound` has passed first (then fewer: the test's assertions on
    /// them say what is missing).
    pub async fn spans_within(
        &self,
        count: usize,
        bound: std::time::Duration,
    ) -> Vec<ReceivedSpan> {
        let mut arrived = self.received.count.subscribe();
        let _ = tokio::time::timeout(bound, arrived.wait_for(|received| *received >= count)).await;
        self.spans()
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn keep(received: &Received, request: ExportTraceServiceRequest) {
    let mut spans = received.spans.lock().expect("not poisoned");
    for resource_spans in request.resource_spans {
        let service = resource_spans
            .resource
            .as_ref()
            .and_then(|resource| attribute(&resource.attributes, "service.name"));
        for scope in resource_spans.scope_spans {
            spans.extend(scope.spans.into_iter().map(|span| ReceivedSpan {
                service: service.clone(),
                span,
            }));
        }
    }
    received.count.send_replace(spans.len());
}

async fn export_http(State(received): State<Received>, body: Bytes) -> impl IntoResponse {
    match ExportTraceServiceRequest::decode(body) {
        Ok(request) => {
            keep(&received, request);
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/x-protobuf")],
                ExportTraceServiceResponse::default().encode_to_vec(),
            )
        }
        Err(error) => (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "text/plain")],
            error.to_string().into_bytes(),
        ),
    }
}

struct Grpc(Received);

#[tonic::async_trait]
impl TraceService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        keep(&self.0, request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}
