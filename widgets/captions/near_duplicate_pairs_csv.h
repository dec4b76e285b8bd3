#pragma once
// write_near_duplicate_pairs_csv: a split's stored near-duplicate pairs as CSV (rank, cosine, both
// caption indices and both texts), the Captions tab's "Near-duplicate pairs" export.

#include <vector>

#include <QString>

#include "store/caption_geometry_record.h"

namespace hnclip::gui {

// `texts[i]` is caption i of the split (a pair naming an index outside it gets an empty text).
// False with `error` naming the path when the file cannot be written.
bool write_near_duplicate_pairs_csv(const QString& path,
                                    const hnclip::CaptionGeometryRecord& record,
                                    const std::vector<QString>& texts, QString* error);

}  // namespace hnclip::gui
