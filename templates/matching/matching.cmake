# Content-based publish/subscribe matching (paper 002): the data model, the columns, the tables
# (keys, pages, constraint rows), prepared events and the results. Paths relative to templates/.
target_sources(sextant_templates PRIVATE
  matching/value.cpp matching/model.cpp matching/text_values.cpp matching/columns.cpp matching/shard.cpp
  matching/tables.cpp matching/prepared_events.cpp matching/match_results.cpp)
