// TrainConfigForm: values round-trip through TrainConfig, γ's spin box and slider agree, and
// invalid values cannot be submitted — the form says why, under the field concerned.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardItemModel>
#include <QtTest>

#include <fstream>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "job/settings_without_effect.h"
#include "support/test_dirs.h"
#include "widgets/train/train_advanced_fields.h"
#include "widgets/train/train_config_form.h"

using hnclip::gui::TrainConfigForm;

class TestTrainConfigForm : public QObject {
  Q_OBJECT
 private slots:
  void config_round_trips() {
    TrainConfigForm form({"cpu"});
    hnclip::TrainConfig c;
    c.benchmark_size = hnclip::BenchmarkSize::kSmall;
    c.init = "pretrained";
    c.loss_gamma = 0.75;
    c.loss_gbar = hnclip::GbarMode::kFrozen;
    c.loss_token_weight = 0.25;
    c.logit_scale = 100;
    c.fixed_scale = true;
    c.epochs = 7;
    c.batch_size = 64;
    c.lr = 3e-5;
    c.data_fraction = 0.5;
    c.seed = 9;
    c.probe_every = 3;
    c.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
    c.name = "round trip";
    form.setConfig(c);
    const auto back = form.config();
    QCOMPARE(back.benchmark_size, c.benchmark_size);
    QCOMPARE(back.init, c.init);
    QCOMPARE(back.loss_gamma, c.loss_gamma);
    QCOMPARE(back.loss_gbar, c.loss_gbar);
    QCOMPARE(back.loss_token_weight, c.loss_token_weight);
    QCOMPARE(back.logit_scale, c.logit_scale);
    QCOMPARE(back.fixed_scale, c.fixed_scale);
    QCOMPARE(back.epochs, c.epochs);
    QCOMPARE(back.batch_size, c.batch_size);
    QCOMPARE(back.lr, c.lr);
    QCOMPARE(back.data_fraction, c.data_fraction);
    QCOMPARE(back.seed, c.seed);
    QCOMPARE(back.probe_every, c.probe_every);
    QCOMPARE(back.device, c.device);
    QCOMPARE(back.name, c.name);
    QVERIFY(form.isValid());

    c.init.clear();
    c.model = "ViT-B/32";
    form.setConfig(c);
    QCOMPARE(form.config().model, std::string("ViT-B/32"));
    QVERIFY(form.config().init.empty());
  }

  // Every TrainConfig key, each at a value other than its default (and rounded editors given more
  // digits than they show), reads back unchanged: the form never resets what it was given, except
  // a greyed-out field, launched at its default and kept for when it is used. A key added to
  // TrainConfig fails the first check until this test gives it a non-default value.
  void every_key_round_trips_unchanged() {
    hnclip::test::ScratchDir dir;
    const std::string manifest = (dir.path() / "m.jsonl").string();
    { std::ofstream(manifest) << "{}\n"; }
    hnclip::TrainConfig c;
    c.benchmark = "manifest";
    c.benchmark_size = hnclip::BenchmarkSize::kLarge;
    c.benchmark_root = manifest;
    c.train_split = "pretrain";
    c.test_split = "val";
    c.val_split = "dev";
    c.data_fraction = 0.123456;
    c.data_seed = 77;
    c.max_image_pixels = 1234567;  // not whole megapixels: must still come back exact
    c.allow_outside_root = true;
    c.skip_bad_images = true;
    c.model = "ViT-B/16";
    c.init = (dir.path() / "start.pt").string();
    c.context_length = 40;
    c.vocab = "/somewhere/vocab.txt.gz";
    c.long_clip = true;
    c.init_activation = "gelu";
    c.loss_gamma = 0.123456;
    c.loss_gbar = hnclip::GbarMode::kFrozen;
    c.loss_token_weight = 0.3333333;
    c.logit_scale = 42.424242;
    c.fixed_scale = true;
    c.peft = hnclip::PeftMethod::kLora;
    c.peft_rank = 3;
    c.peft_alpha = 5.55555;
    c.peft_towers = "image";
    c.epochs = 3;
    c.batch_size = 16;
    c.lr = 1.23456789e-4;
    c.weight_decay = 0.0123456;
    c.warmup_fraction = 0.1234567;
    c.grad_clip = 0.987654321;
    c.probe_every = 2;
    c.gbar_snapshots = 5;
    c.seed = 4;
    c.batch_sampler = hnclip::BatchSampler::kFamilies;
    c.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
    c.threads = 1;
    c.loader_workers = 3;
    c.precision = hnclip::Precision::kFp32;
    c.eval_at_start = false;
    c.name = "every key";
    c.world_size = 2;
    c.dist_backend = "gloo";
    c.dist_eval = "rank0";
    c.framework = hnclip::Framework::kLongClip;
    c.hn = false;
    c.longclip_pca_components = 7;
    c.longclip_label_smoothing = 0.123456;
    c.debias_keep_ratio = 0.37;
    c.debias_pad_tokens = 5;
    c.finelip_margin = 0.31;
    c.finelip_hardest_negative = true;
    c.finelip_aggregation_lr = 2.5e-4;
    c.goal_segments = "/data/goal segments.json";
    c.goal_crop_weight = 0.75;
    c.train_towers = "text";
    c.structxlip_words = "/data/my words.txt";
    c.structxlip_structure_weight = 0.35;
    c.structxlip_consistency_weight = 0.07;
    c.structxlip_local_weight = 0.2;
    c.structxlip_chunk_words = 4;
    const nlohmann::json given = c, defaults = hnclip::TrainConfig{};
    for (const auto& [key, value] : defaults.items())
      QVERIFY2(given.at(key) != value, ("the test leaves " + key + " at its default").c_str());

    TrainConfigForm form({"cpu"});
    form.setConfig(c);
    const nlohmann::json back = form.config();
    // A field greyed out for this configuration (Long-CLIP, a file start, a manifest) is launched
    // at its default: a run would record a setting it never reads, which `hnclip train` refuses.
    // Each comes back as given once what reads it is chosen again.
    auto* framework = form.advancedFields()->frameworkCombo();
    const std::vector<std::pair<std::function<void()>, std::set<std::string>>> greyed = {
        {[&] { form.benchmarkCombo()->setCurrentText(QStringLiteral("synthetic")); },
         {"benchmark_size", "data_seed"}},
        {[&] {
           form.modelCombo()->setCurrentIndex(
               form.modelCombo()->findData(QStringLiteral("random:ViT-B/16")));
         },
         {"context_length"}},
        {[&] { framework->setCurrentText(QStringLiteral("debias")); },
         {"debias_keep_ratio", "debias_pad_tokens"}},
        {[&] { framework->setCurrentText(QStringLiteral("finelip")); },
         {"finelip_margin", "finelip_hardest_negative", "finelip_aggregation_lr"}},
        {[&] { framework->setCurrentText(QStringLiteral("goal")); },
         {"goal_crop_weight", "goal_segments"}},
        {[&] { framework->setCurrentText(QStringLiteral("structxlip")); },
         {"structxlip_words", "structxlip_structure_weight", "structxlip_consistency_weight",
          "structxlip_local_weight", "structxlip_chunk_words", "goal_segments"}},
    };
    std::set<std::string> greyed_keys;
    for (const auto& [choose, keys] : greyed) greyed_keys.insert(keys.begin(), keys.end());
    for (const auto& [key, value] : given.items())
      QVERIFY2(back.at(key) == (greyed_keys.count(key) > 0 ? defaults.at(key) : value),
               (key + ": " + value.dump() + " came back as " + back.at(key).dump()).c_str());
    for (const auto& [choose, keys] : greyed) {
      form.setConfig(c);
      choose();
      const nlohmann::json chosen = form.config();
      for (const auto& key : keys)
        QVERIFY2(
            chosen.at(key) == given.at(key),
            (key + ": " + given.at(key).dump() + " came back as " + chosen.at(key).dump()).c_str());
    }
    // Whatever the framework and adapters, nothing is launched that the rules `hnclip train`
    // refuses flags by leave unread.
    for (const char* f : {"plain", "longclip", "debias", "finelip", "goal", "structxlip"}) {
      for (const char* peft : {"lora", "none"}) {
        form.setConfig(c);
        framework->setCurrentText(QString::fromLatin1(f));
        form.peftCombo()->setCurrentIndex(form.peftCombo()->findData(QString::fromLatin1(peft)));
        const hnclip::TrainConfig launched = form.config();
        const nlohmann::json launched_json = launched;
        for (const auto& rule : hnclip::setting_rules()) {
          if (rule.used(launched)) continue;
          for (const auto& setting : rule.settings)
            QVERIFY2(launched_json.at(setting.key) == defaults.at(setting.key),
                     (std::string(f) + ", peft " + peft + ": " + setting.key + " " +
                      launched_json.at(setting.key).dump() + " is launched though unread")
                         .c_str());
        }
      }
    }
    form.setConfig(c);
    // Folded, the Advanced section's title still names what differs from the defaults.
    QVERIFY(!form.advancedVisible());
    QVERIFY2(form.advancedTitle().contains("threads 1") && form.advancedTitle().contains("fp32"),
             qPrintable(form.advancedTitle()));

    // An edit changes exactly the edited key.
    form.advancedFields()->threadsSpin()->setValue(2);
    nlohmann::json edited = form.config();
    QCOMPARE(edited.at("threads").get<int>(), 2);
    edited["threads"] = 1;
    for (const auto& key : greyed_keys) edited[key] = given.at(key);
    QCOMPARE(edited, given);
    // The image-file checks are in the form too, so a GUI run can take someone else's data set.
    QVERIFY2(form.advancedTitle().contains("skip bad images") &&
                 form.advancedTitle().contains("paths outside the root"),
             qPrintable(form.advancedTitle()));
    form.advancedFields()->skipBadImagesCheck()->setChecked(false);
    edited = form.config();
    QCOMPARE(edited.at("skip_bad_images").get<bool>(), false);
    QCOMPARE(edited.at("max_image_pixels").get<int64_t>(), int64_t{1234567});
  }

  // Seeds are 64-bit: a run started with --seed 3000000000 came back from "Same as run…" as seed
  // 0 (the int spin box wrapped it, then clamped it), shown and trained so without a word. They
  // show and read back as given; a field that is not a 64-bit number is refused in place.
  void seeds_beyond_an_int_show_and_read_back_as_given() {
    TrainConfigForm form({"cpu"});
    hnclip::TrainConfig c = form.config();
    c.seed = 3000000000ull;
    c.data_seed = 18446744073709551615ull;
    form.setConfig(c);
    QCOMPARE(form.seedEdit()->text(), QStringLiteral("3000000000"));
    QCOMPARE(form.dataSeedEdit()->text(), QStringLiteral("18446744073709551615"));
    QCOMPARE(form.config().seed, uint64_t{3000000000ull});
    QCOMPARE(form.config().data_seed, uint64_t{18446744073709551615ull});
    QVERIFY2(form.isValid(), qPrintable(form.problem()));

    form.seedEdit()->setText(QStringLiteral("18446744073709551616"));  // 2^64
    QVERIFY(!form.isValid());
    QVERIFY2(form.fieldMessage(QStringLiteral("--seed"))
                 .contains(QStringLiteral("--seed must be a whole number from 0 to "
                                          "18446744073709551615 (got '18446744073709551616')")),
             qPrintable(form.fieldMessage(QStringLiteral("--seed"))));
    form.seedEdit()->setText(QString());
    QVERIFY(!form.isValid());
    form.seedEdit()->setText(QStringLiteral("12"));
    QVERIFY2(form.isValid(), qPrintable(form.problem()));
    QCOMPARE(form.config().seed, uint64_t{12});
    // Only digits can be typed.
    QTest::keyClicks(form.seedEdit(), QStringLiteral("x-3"));
    QCOMPARE(form.seedEdit()->text(), QStringLiteral("123"));
  }

  // --val-split is an Advanced field: shown, named in the folded title, and refused in place
  // when it is the test split.
  void validation_split_is_an_advanced_field_and_checked() {
    TrainConfigForm form({"cpu"});
    hnclip::TrainConfig c = form.config();
    c.val_split = "val";
    form.setConfig(c);
    QCOMPARE(form.config().val_split, std::string("val"));
    QVERIFY2(form.isValid(), qPrintable(form.problem()));
    QVERIFY2(form.advancedTitle().contains("validation split val"),
             qPrintable(form.advancedTitle()));
    c.val_split = c.test_split;
    form.setConfig(c);
    QVERIFY(!form.isValid());
    const QString message = form.fieldMessage(QStringLiteral("--val-split"));
    QVERIFY2(message.contains(QStringLiteral("--test-split")), qPrintable(message));
  }

  void opens_on_the_builtin_finetuning_recipe() {
    TrainConfigForm form({"cpu"});
    const auto c = form.config();
    QCOMPARE(c.benchmark, std::string("synthetic"));
    QCOMPARE(c.init, std::string("pretrained"));
    QCOMPARE(c.loss_gamma, 0.5);
    QCOMPARE(c.logit_scale, 100.0);
    QVERIFY(c.fixed_scale);
    QVERIFY(form.isValid());
    QVERIFY2(form.advancedTitle().contains("all defaults"), qPrintable(form.advancedTitle()));
  }

  void adapters_and_vocabulary_round_trip_and_are_checked() {
    hnclip::test::ScratchDir dir;
    TrainConfigForm form({"cpu"});
    hnclip::TrainConfig c;
    c.peft = hnclip::PeftMethod::kDora;
    c.peft_rank = 4;
    c.peft_alpha = 8;
    c.peft_towers = "text";
    form.setConfig(c);
    auto back = form.config();
    QCOMPARE(back.peft, hnclip::PeftMethod::kDora);
    QCOMPARE(back.peft_rank, int64_t{4});
    QCOMPARE(back.peft_alpha, 8.0);
    QCOMPARE(back.peft_towers, std::string("text"));
    QVERIFY(form.isValid());
    // Greyed out without adapters, they are launched at their defaults (`hnclip train` refuses
    // them) and kept for when adapters come back.
    form.peftCombo()->setCurrentIndex(form.peftCombo()->findData(QStringLiteral("none")));
    const hnclip::TrainConfig defaults;
    QCOMPARE(form.config().peft_rank, defaults.peft_rank);
    QCOMPARE(form.config().peft_alpha, defaults.peft_alpha);
    QCOMPARE(form.config().peft_towers, defaults.peft_towers);
    form.peftCombo()->setCurrentIndex(form.peftCombo()->findData(QStringLiteral("lora")));
    QCOMPARE(form.config().peft_rank, int64_t{4});
    QCOMPARE(form.config().peft_towers, std::string("text"));

    hnclip::test::write_text_file(dir / "clip.pt", "x");
    c.init = (dir / "clip.pt").string();
    c.vocab = (dir / "missing-vocab.txt.gz").string();
    c.long_clip = true;
    form.setConfig(c);
    QVERIFY(!form.isValid());
    QVERIFY(form.fieldMessage(QStringLiteral("--vocab")).contains(QStringLiteral("missing-vocab")));
    hnclip::test::write_text_file(dir / "missing-vocab.txt.gz", "x");
    form.vocabEdit()->clear();  // retyped now that it exists
    form.vocabEdit()->setText(QString::fromStdString(c.vocab));
    QVERIFY2(form.isValid(), qPrintable(form.problem()));
    back = form.config();
    QCOMPARE(back.vocab, c.vocab);
    QVERIFY(back.long_clip);
  }

  // A greyed-out field the launch would still have read: Ḡ "frozen" left checked when γ went back
  // to 0 was stored with a plain InfoNCE run (listed as frozen, a control it is not), and
  // "stretch to Long-CLIP" or a --vocab left from a file start refused the built-in start over a
  // field the user could not edit. The context length, which only sizes a run from scratch, is
  // greyed out for a checkpoint start. The built-in benchmark's size and data seed, greyed out for
  // a data set on disk, were recorded with it though never read (and a new run refuses them).
  void a_greyed_out_setting_is_not_launched_with() {
    hnclip::test::ScratchDir dir;
    TrainConfigForm form({"cpu"});
    form.gammaSpin()->setValue(0.5);
    form.gbarFrozenButton()->setChecked(true);
    QCOMPARE(form.config().loss_gbar, hnclip::GbarMode::kFrozen);
    form.gammaSpin()->setValue(0);
    QVERIFY(!form.gbarFrozenButton()->isEnabled());
    QCOMPARE(form.config().loss_gbar, hnclip::GbarMode::kRecomputed);
    form.gammaSpin()->setValue(0.25);  // the choice is kept for when margins come back
    QCOMPARE(form.config().loss_gbar, hnclip::GbarMode::kFrozen);

    hnclip::test::write_text_file(dir / "clip.pt", "x");
    hnclip::TrainConfig c;
    c.init = (dir / "clip.pt").string();
    c.long_clip = true;
    form.setConfig(c);
    QVERIFY(form.config().long_clip);
    QVERIFY(!form.advancedFields()->contextLengthSpin()->isEnabled());
    form.vocabEdit()->setText(QStringLiteral("/somewhere/vocab.txt.gz"));
    QCOMPARE(form.config().vocab, std::string("/somewhere/vocab.txt.gz"));
    form.modelCombo()->setCurrentIndex(form.modelCombo()->findData(QStringLiteral("pretrained")));
    QVERIFY(!form.longClipCheck()->isEnabled());
    QVERIFY(!form.config().long_clip);
    QVERIFY(form.config().vocab.empty());
    QVERIFY(!form.advancedFields()->contextLengthSpin()->isEnabled());
    form.modelCombo()->setCurrentIndex(form.modelCombo()->findData(QStringLiteral("random:tiny")));
    QVERIFY(form.advancedFields()->contextLengthSpin()->isEnabled());

    hnclip::TrainConfig large;
    large.benchmark_size = hnclip::BenchmarkSize::kLarge;
    large.data_seed = 7;
    form.setConfig(large);
    form.benchmarkCombo()->setCurrentText(QStringLiteral("manifest"));
    QVERIFY(!form.dataSeedEdit()->isEnabled());
    const hnclip::TrainConfig defaults;
    QCOMPARE(form.config().benchmark_size, defaults.benchmark_size);
    QCOMPARE(form.config().data_seed, defaults.data_seed);
    form.benchmarkCombo()->setCurrentText(QStringLiteral("synthetic"));  // kept for its return
    QCOMPARE(form.config().benchmark_size, hnclip::BenchmarkSize::kLarge);
    QCOMPARE(form.config().data_seed, uint64_t{7});

    // StructXLIP reads GOAL's segment file for its local term only.
    hnclip::TrainConfig structxlip;
    structxlip.framework = hnclip::Framework::kStructxlip;
    structxlip.goal_segments = "/data/segments.json";
    structxlip.structxlip_local_weight = 0;
    form.setConfig(structxlip);
    QVERIFY(form.config().goal_segments.empty());
    structxlip.structxlip_local_weight = 0.1;
    form.setConfig(structxlip);
    QCOMPARE(form.config().goal_segments, structxlip.goal_segments);
  }

  void gamma_spin_and_slider_agree() {
    TrainConfigForm form({"cpu"});
    form.gammaSpin()->setValue(1.25);
    QCOMPARE(form.gammaSlider()->value(), 25);
    form.gammaSlider()->setValue(10);
    QCOMPARE(form.gammaSpin()->value(), 0.5);
    QCOMPARE(form.gammaSlider()->maximum(), 40);  // the slider spans [0, 2] ...
    QCOMPARE(form.gammaSpin()->singleStep(), 0.05);
    form.gammaSpin()->setValue(3.5);  // ... a typed (or copied) γ beyond it is kept, not clamped
    QCOMPARE(form.config().loss_gamma, 3.5);
    QCOMPARE(form.gammaSlider()->value(), 40);
  }

  void invalid_learning_rate_is_refused_in_place() {
    TrainConfigForm form({"cpu"});
    QSignalSpy validity(&form, &TrainConfigForm::validityChanged);
    QVERIFY(form.isValid());
    form.lrEdit()->setText(QStringLiteral("fast"));
    QVERIFY(!form.isValid());
    QCOMPARE(validity.count(), 1);
    QCOMPARE(validity.first().first().toBool(), false);
    QVERIFY2(form.fieldMessage(QStringLiteral("--lr")).contains(QStringLiteral("fast")),
             qPrintable(form.fieldMessage(QStringLiteral("--lr"))));
    form.lrEdit()->setText(QStringLiteral("-1e-4"));
    QVERIFY(!form.isValid());
    QVERIFY(form.fieldMessage(QStringLiteral("--lr")).contains(QStringLiteral("> 0")));
    form.lrEdit()->setText(QStringLiteral("1e-4"));
    QVERIFY(form.isValid());
    QVERIFY(form.fieldMessage(QStringLiteral("--lr")).isEmpty());
    QCOMPARE(validity.last().first().toBool(), true);
  }

  // A name the core refuses when the run is created (a tab, a line break) disables Start first.
  void a_name_that_is_not_one_line_is_refused_in_place() {
    TrainConfigForm form({"cpu"});
    hnclip::TrainConfig c = form.config();
    c.name = "gamma\t0.5";
    form.setConfig(c);
    QVERIFY(!form.isValid());
    QVERIFY2(form.fieldMessage(QStringLiteral("--name")).contains(QStringLiteral("(it has a tab)")),
             qPrintable(form.fieldMessage(QStringLiteral("--name"))));
    c.name = "gamma 0.5";
    form.setConfig(c);
    QVERIFY(form.isValid());
    QVERIFY(form.fieldMessage(QStringLiteral("--name")).isEmpty());
  }

  void checkpoint_file_must_exist() {
    hnclip::test::ScratchDir dir;
    TrainConfigForm form({"cpu"});
    form.modelCombo()->setCurrentIndex(form.modelCombo()->findData(QStringLiteral("checkpoint")));
    QVERIFY(!form.isValid());
    QVERIFY(form.fieldMessage(QStringLiteral("--init")).contains(QStringLiteral("choose")));
    const auto missing = (dir / "nope.pt").string();
    form.initPathEdit()->setText(QString::fromStdString(missing));
    QVERIFY(form.fieldMessage(QStringLiteral("--init")).contains(QString::fromStdString(missing)));
    hnclip::test::write_text_file(dir / "there.pt", "x");
    form.initPathEdit()->setText(QString::fromStdString((dir / "there.pt").string()));
    QVERIFY2(form.isValid(), qPrintable(form.problem()));
    QCOMPARE(form.config().init, (dir / "there.pt").string());
    // A Hugging Face or open_clip folder is a starting point too (recognised by content when the
    // run starts).
    std::filesystem::create_directories(dir / "clip-vit-base-patch32");
    form.initPathEdit()->setText(QString::fromStdString((dir / "clip-vit-base-patch32").string()));
    QVERIFY2(form.isValid(), qPrintable(form.problem()));
    // --activation is said for a file start only: the pretrained checkpoint records its own.
    QVERIFY(form.activationCombo()->isEnabled());
    form.activationCombo()->setCurrentIndex(form.activationCombo()->findData(QStringLiteral("gelu")));
    QCOMPARE(form.config().init_activation, std::string("gelu"));
    form.modelCombo()->setCurrentIndex(form.modelCombo()->findData(QStringLiteral("pretrained")));
    QVERIFY(!form.activationCombo()->isEnabled());
    QVERIFY(form.config().init_activation.empty());
  }

  void real_benchmark_needs_an_existing_data_root() {
    TrainConfigForm form({"cpu"});
    form.benchmarkCombo()->setCurrentText(QStringLiteral("manifest"));
    QVERIFY(!form.isValid());
    QVERIFY(form.fieldMessage(QStringLiteral("--data-root")).contains(QStringLiteral("manifest")));
    form.dataRootEdit()->setText(QStringLiteral("/definitely/not/here.jsonl"));
    QVERIFY(form.fieldMessage(QStringLiteral("--data-root"))
                .contains(QStringLiteral("/definitely/not/here.jsonl")));
    form.benchmarkCombo()->setCurrentText(QStringLiteral("synthetic"));
    QVERIFY(form.isValid());
  }

  void cuda_is_greyed_out_without_a_device() {
    TrainConfigForm form({"cpu"});
    auto* model = qobject_cast<QStandardItemModel*>(form.deviceCombo()->model());
    QVERIFY(model);
    const int cuda = form.deviceCombo()->findData(QStringLiteral("cuda"));
    QVERIFY(cuda >= 0);
    QVERIFY(!model->item(cuda)->isEnabled());
    hnclip::TrainConfig c;
    c.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCuda, 0};
    form.setConfig(c);  // e.g. "same as" a run made on a GPU server
    QVERIFY(!form.isValid());
    QVERIFY(!form.fieldMessage(QStringLiteral("--device")).isEmpty());

    TrainConfigForm gpu({"cpu", "cuda:0"});
    const int cuda0 = gpu.deviceCombo()->findData(QStringLiteral("cuda:0"));
    QVERIFY(cuda0 >= 0);
    gpu.deviceCombo()->setCurrentIndex(cuda0);
    QVERIFY2(gpu.isValid(), qPrintable(gpu.problem()));
  }
};

QTEST_MAIN(TestTrainConfigForm)
#include "test_train_config_form.moc"
