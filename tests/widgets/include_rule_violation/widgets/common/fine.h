#pragma once
// Fixture for the include-rule check's own test: common/ includes no tab.
