// StreamWindow::advance_watermark (api/stream_window.hpp), the same body for the CPU
// (tests/api/stream_window_api_test.cpp) and a GPU (tests/api/stream_window_api_gpu_test.cpp):
//  * a hand-made stream whose windows fire only through watermarks without tuples, with the
//    expected windows written out;
//  * a generated out-of-order stream pushed twice: with each tuple's watermark, and tuple by tuple
//    without watermarks, each followed by advance_watermark(its watermark) — the semantics say a
//    tuple's watermark takes effect after the tuple, so both give the same windows, late drops and
//    ignored watermarks.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "api/stream_window.hpp"
#include "core/error.hpp"
#include "datagen/stream_generator.hpp"

namespace sextant::window::testing {

inline void expect_heartbeats_fire_windows(const StreamDeviceOptions& device) {
  StreamWindowOptions options;
  options.specs = {{WindowType::time, 10, 10}};
  StreamWindow op(ValueType::int64, StreamAggregateKind::sum, options, device);
  const std::vector<StreamKey> keys = {0, 0, 1};
  const std::vector<std::int64_t> ts = {1, 12, 4};
  const std::vector<std::int64_t> values = {5, 7, 11};
  op.push(StreamBatch<std::int64_t>{keys, ts, values, {}});
  StreamResults r;
  EXPECT_EQ(op.poll(r), 0u) << "no watermark yet";
  op.advance_watermark(10);  // closes [0, 10) of both keys
  ASSERT_EQ(op.poll(r), 2u);
  r.sort();
  EXPECT_EQ(r.keys, (ColumnVector<StreamKey>{0, 1}));
  EXPECT_EQ(r.starts, (ColumnVector<std::int64_t>{0, 0}));
  EXPECT_EQ(r.ends, (ColumnVector<std::int64_t>{10, 10}));
  EXPECT_EQ(std::vector<std::int64_t>(r.values_as<std::int64_t>().begin(), r.values_as<std::int64_t>().end()),
            (std::vector<std::int64_t>{5, 11}));
  op.advance_watermark(7);  // lower: ignored and counted
  EXPECT_EQ(op.counters().watermarks_ignored, 1u);
  EXPECT_EQ(op.watermark(), 10);
  const std::vector<StreamKey> late_key = {0};
  const std::vector<std::int64_t> late_ts = {3};
  const std::vector<std::int64_t> late_value = {100};
  op.push(StreamBatch<std::int64_t>{late_key, late_ts, late_value, {}});
  EXPECT_EQ(op.counters().late_dropped, 1u);
  r.clear();
  op.advance_watermark(20);  // closes [10, 20) of key 0
  ASSERT_EQ(op.poll(r), 1u);
  EXPECT_EQ(r.starts[0], 10);
  EXPECT_EQ(r.values_as<std::int64_t>()[0], 7);
  op.finish();
  EXPECT_EQ(op.poll(r), 0u);
  EXPECT_THROW(op.advance_watermark(30), Error);
}

inline void expect_heartbeats_equal_tuple_watermarks(const StreamDeviceOptions& device) {
  datagen::StreamGeneratorSpec spec;
  spec.n = 2000;
  spec.keys = 5;
  spec.rate = 2;
  spec.delay = 15;
  spec.delay_distribution = datagen::DelayDistribution::exponential;
  spec.watermark_bound = 20;
  spec.seed = 29;
  const auto columns = datagen::project<std::int64_t>(datagen::generate_stream(spec),
                                                      datagen::StreamField::int_value, spec.bound());
  StreamWindowOptions options;
  options.specs = {{WindowType::time, 60, 20}, {WindowType::time, 25, 25}};
  options.lateness = 3;

  StreamWindow with(ValueType::int64, StreamAggregateKind::sum, options, device);
  for (std::size_t first = 0; first < columns.size(); first += 400)
    with.push(columns.batch(first, std::min<std::size_t>(400, columns.size() - first)));
  StreamWindow alone(ValueType::int64, StreamAggregateKind::sum, options, device);
  StreamResults before_finish;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const StreamBatch<std::int64_t> one = columns.batch(i, 1);
    alone.push(StreamBatch<std::int64_t>{one.keys, one.timestamps, one.values, {}});
    alone.advance_watermark(columns.watermarks[i]);
    if (i % 256 == 0) alone.poll(before_finish);
  }
  EXPECT_GT(before_finish.size(), 0u) << "watermarks without tuples fire windows before the end";
  StreamResults fired_before = before_finish;
  alone.poll(fired_before);
  const std::size_t alone_before_finish = fired_before.size();
  StreamResults with_before;
  with.poll(with_before);
  EXPECT_EQ(alone_before_finish, with_before.size()) << "the same windows fire by the same watermark";
  with.finish();
  alone.finish();
  StreamResults a = with_before;
  with.poll(a);
  a.sort();
  StreamResults b = fired_before;
  alone.poll(b);
  b.sort();
  EXPECT_EQ(a.specs, b.specs);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.starts, b.starts);
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(with.counters().late_dropped, alone.counters().late_dropped);
  EXPECT_GT(alone.counters().late_dropped, 0u);
  EXPECT_EQ(with.counters().watermarks_ignored, alone.counters().watermarks_ignored);
  EXPECT_EQ(with.watermark(), alone.watermark());
}

}  // namespace sextant::window::testing
