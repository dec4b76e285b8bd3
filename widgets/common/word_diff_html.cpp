#include "widgets/common/word_diff_html.h"

#include <string>

#include <QStringList>

#include "text/word_diff.h"

namespace hnclip::gui {
namespace {

// Dark text on amber: a word of this caption that the reference does not have.
constexpr const char* kAddedOpen = "<b style=\"background-color:#fde68a; color:#1f2937\">";
constexpr const char* kAddedClose = "</b>";
// Dark red on pale red, struck through: the reference's words this caption lacks.
constexpr const char* kRemovedOpen = "<s style=\"background-color:#fecaca; color:#7f1d1d\">";
constexpr const char* kRemovedClose = "</s>";

QString escaped(const std::string& text, size_t begin, size_t end) {
  return QString::fromStdString(text.substr(begin, end - begin)).toHtmlEscaped();
}

}  // namespace

QString word_diff_html(const QString& text, const QString& reference, bool show_removed) {
  const std::string b = text.toStdString(), a = reference.toStdString();
  const hnclip::WordDiff diff = hnclip::word_diff(a, b);
  QString out;
  out.reserve(text.size() + 128);
  QStringList removed;  // reference words waiting for the next word of `text`
  const auto flush_removed = [&] {
    if (removed.isEmpty()) return;
    out +=
        QLatin1String(kRemovedOpen) + removed.join(QLatin1Char(' ')) + QLatin1String(kRemovedClose);
    removed.clear();
  };
  size_t cursor = 0;        // bytes of `text` written so far
  bool added_open = false;  // the last word written was an added one, its mark still open
  const auto close_added = [&] {
    if (added_open) out += QLatin1String(kAddedClose);
    added_open = false;
  };
  for (const auto& op : diff.ops) {
    if (op.kind == hnclip::WordDiffOp::kRemoved) {
      const auto& w = diff.a[op.a];
      if (show_removed) {
        close_added();
        removed << escaped(a, w.begin, w.end);
      }
      continue;
    }
    const auto& w = diff.b[op.b];
    const bool added = op.kind == hnclip::WordDiffOp::kAdded;
    // A run of added words is one mark, the spacing between them inside it: easier to read than
    // a mark per word.
    if (!added) close_added();
    out += escaped(b, cursor, w.begin);  // spacing and punctuation before the word
    if (!removed.isEmpty()) {
      flush_removed();
      out += QLatin1Char(' ');
    }
    if (added && !added_open) {
      out += QLatin1String(kAddedOpen);
      added_open = true;
    }
    out += escaped(b, w.begin, w.end);
    cursor = w.end;
  }
  close_added();
  if (!removed.isEmpty()) {  // the reference goes on after this caption's last word
    if (!out.isEmpty()) out += QLatin1Char(' ');
    flush_removed();
  }
  out += escaped(b, cursor, b.size());
  return out;
}

}  // namespace hnclip::gui
