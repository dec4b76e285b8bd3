// ConfigDiff: flattening of nested configs, which keys differ (JSON equality, absent keys), errors.
#include <QtTest>

#include "widgets/runs/config_diff.h"

using hnclip::gui::ConfigDiff;
using hnclip::gui::ConfigDiffRow;

namespace {
const ConfigDiffRow* find_row(const std::vector<ConfigDiffRow>& rows, const std::string& key) {
  for (const auto& r : rows)
    if (r.key == key) return &r;
  return nullptr;
}

QStringList keys_of(const std::vector<ConfigDiffRow>& rows) {
  QStringList out;
  for (const auto& r : rows) out << QString::fromStdString(r.key);
  return out;
}
}  // namespace

class TestConfigDiff : public QObject {
  Q_OBJECT
 private slots:
  void only_differing_keys() {
    const ConfigDiff diff(
        {"a", "b", "c"},
        {R"({"loss_gamma": 0, "lr": 5e-5, "benchmark": "synthetic", "epochs": 10,
                               "opt": {"beta1": 0.9, "beta2": 0.98}})",
         R"({"loss_gamma": 0.5, "lr": 5e-5, "benchmark": "synthetic", "epochs": 10.0,
                               "opt": {"beta1": 0.9, "beta2": 0.999}})",
         R"({"loss_gamma": 0, "lr": 5e-5, "benchmark": "synthetic", "epochs": 10,
                               "opt": {"beta1": 0.9, "beta2": 0.98}, "fixed_scale": true})"});
    QCOMPARE(diff.runCount(), size_t(3));
    QCOMPARE(keys_of(diff.rows()), (QStringList{"benchmark", "epochs", "fixed_scale", "loss_gamma",
                                                "lr", "opt.beta1", "opt.beta2"}));
    // 10 and 10.0 are the same number; a key only one run has differs.
    QCOMPARE(keys_of(diff.differingRows()),
             (QStringList{"fixed_scale", "loss_gamma", "opt.beta2"}));
    const auto* fixed = find_row(diff.rows(), "fixed_scale");
    QVERIFY(fixed);
    QVERIFY(!fixed->values[0].has_value());
    QVERIFY(!fixed->values[1].has_value());
    QCOMPARE(fixed->values[2].value(), std::string("true"));
    const auto* bench = find_row(diff.rows(), "benchmark");
    QCOMPARE(bench->values[1].value(), std::string("synthetic"));  // no JSON quotes
    QVERIFY(!bench->differs);
    QCOMPARE(find_row(diff.rows(), "loss_gamma")->values[1].value(), std::string("0.5"));
    // Against run 0: b differs in gamma and beta2, c only in the key a lacks.
    QCOMPARE(find_row(diff.rows(), "loss_gamma")->differs_from_first,
             (std::vector<bool>{false, true, false}));
    QCOMPARE(find_row(diff.rows(), "opt.beta2")->differs_from_first,
             (std::vector<bool>{false, true, false}));
    QCOMPARE(fixed->differs_from_first, (std::vector<bool>{false, false, true}));
    QCOMPARE(bench->differs_from_first, (std::vector<bool>{false, false, false}));
  }

  void string_and_number_differ() {
    const ConfigDiff diff({"a", "b"},
                          {R"({"seed": 1, "tags": [1, 2]})", R"({"seed": "1", "tags": [1, 2]})"});
    QCOMPARE(keys_of(diff.differingRows()), QStringList{"seed"});
    QCOMPARE(find_row(diff.rows(), "tags")->values[0].value(), std::string("[1,2]"));
  }

  void identical_configs_have_no_differences() {
    const std::string c = R"({"loss_gamma": 0.25, "loss_gbar": "frozen"})";
    const ConfigDiff diff({"a", "b"}, {c, c});
    QCOMPARE(diff.rows().size(), size_t(2));
    QVERIFY(diff.differingRows().empty());
  }

  void bad_config_names_the_run() {
    try {
      ConfigDiff({"good", "run 7"}, {"{}", "{not json"});
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("run 7") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ConfigDiff({"a", "b"}, {"{}", "[1]"}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ConfigDiff({"a"}, {"{}", "{}"}));
  }
};

QTEST_MAIN(TestConfigDiff)
#include "test_config_diff.moc"
