#pragma once
// The first block of a kernel trace held in memory (header and body), parsed
// as the trace readers do; errors name the trace `name`.
#include <gtest/gtest.h>

#include <string>

#include "frontend/text/block_parser.h"
#include "frontend/text/kernel_text_reader.h"

namespace lockstep::test {

inline BlockTrace parse_first_block(const std::string& text, const std::string& name, StaticTable& table) {
  KernelTextReader reader(text, name, nullptr);
  BlockText bt;
  EXPECT_TRUE(reader.next_block(bt));
  BlockTrace b;
  parse_block_text(bt, reader.info(), reader.name(), table, b);
  return b;
}

}  // namespace lockstep::test
