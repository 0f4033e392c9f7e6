#include "frontend/container/manifest_codec.h"

#include "frontend/trace/trace_error.h"
#include "trace.pb.h"

namespace lockstep {
namespace {

void put_dim3(const Dim3& d, proto::Dim3* p) {
  p->set_x(d.x);
  p->set_y(d.y);
  p->set_z(d.z);
}
Dim3 get_dim3(const proto::Dim3& p) { return Dim3{p.x(), p.y(), p.z()}; }

}  // namespace

void encode_manifest(const TraceManifest& m, uint32_t format_version, proto::TraceHeader& out) {
  out.Clear();
  out.set_format_version(format_version);
  out.set_source(m.source);
  out.set_producer(kContainerProducer);
  for (const KernelInfo& k : m.kernels) {
    proto::KernelHeader* h = out.add_kernels();
    h->set_kernel_id(k.kernel_id);
    h->set_name(k.name);
    put_dim3(k.grid, h->mutable_grid());
    put_dim3(k.block, h->mutable_block());
    h->set_shmem_bytes(k.shmem_bytes);
    h->set_nregs(k.nregs);
    h->set_binary_version(k.binary_version);
    h->set_cuda_stream_id(k.cuda_stream_id);
    h->set_shmem_base(k.shmem_base);
    h->set_local_base(k.local_base);
    h->set_nvbit_version(k.nvbit_version);
    h->set_tracer_version(k.tracer_version);
    h->set_lineinfo(k.lineinfo);
    for (const auto& [key, value] : k.header_fields) {
      proto::KeyValue* kv = h->add_header_fields();
      kv->set_key(key);
      kv->set_value(value);
    }
    h->set_source_file(k.source_file);
    h->set_raw_tracer_output(k.raw_tracer_output);
    h->set_format_comment(k.format_comment);
  }
  for (const TraceCommand& c : m.commands) {
    proto::Command* p = out.add_commands();
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      p->mutable_memcpy()->set_address(c.memcpy.address);
      p->mutable_memcpy()->set_bytes(c.memcpy.bytes);
    } else {
      if (c.kernel_index >= m.kernels.size())
        throw TraceError("manifest: command names kernel " + std::to_string(c.kernel_index) + " of " +
                         std::to_string(m.kernels.size()));
      p->set_kernel_index(c.kernel_index);
    }
  }
}

TraceManifest decode_manifest(const proto::TraceHeader& h, const std::string& where) {
  TraceManifest m;
  m.source = h.source();
  m.kernels.reserve(size_t(h.kernels_size()));
  for (const proto::KernelHeader& p : h.kernels()) {
    KernelInfo k;
    k.kernel_id = p.kernel_id();
    k.name = p.name();
    k.grid = get_dim3(p.grid());
    k.block = get_dim3(p.block());
    k.shmem_bytes = p.shmem_bytes();
    k.nregs = p.nregs();
    k.binary_version = p.binary_version();
    k.cuda_stream_id = p.cuda_stream_id();
    k.shmem_base = p.shmem_base();
    k.local_base = p.local_base();
    k.nvbit_version = p.nvbit_version();
    k.tracer_version = p.tracer_version();
    k.lineinfo = p.lineinfo();
    k.header_fields.reserve(size_t(p.header_fields_size()));
    for (const proto::KeyValue& kv : p.header_fields()) k.header_fields.emplace_back(kv.key(), kv.value());
    k.source_file = p.source_file();
    k.raw_tracer_output = p.raw_tracer_output();
    k.format_comment = p.format_comment();
    m.kernels.push_back(std::move(k));
  }
  m.commands.reserve(size_t(h.commands_size()));
  for (int i = 0; i < h.commands_size(); ++i) {
    const proto::Command& p = h.commands(i);
    TraceCommand c;
    switch (p.kind_case()) {
      case proto::Command::kMemcpy:
        c.kind = TraceCommand::Kind::kMemcpy;
        c.memcpy = MemcpyHtoD{p.memcpy().address(), p.memcpy().bytes()};
        break;
      case proto::Command::kKernelIndex:
        c.kind = TraceCommand::Kind::kKernel;
        c.kernel_index = p.kernel_index();
        if (c.kernel_index >= m.kernels.size())
          throw TraceError(where + ": command " + std::to_string(i) + " names kernel " +
                           std::to_string(c.kernel_index) + " but the header lists " +
                           std::to_string(m.kernels.size()));
        break;
      default:
        throw TraceError(where + ": command " + std::to_string(i) + " is neither a memcpy nor a kernel launch");
    }
    m.commands.push_back(c);
  }
  return m;
}

}  // namespace lockstep
