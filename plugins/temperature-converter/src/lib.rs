//! The reference's class-skill example as a plugin: a `temperature-conversion-formulas`
//! resource and a `convert-temperature` script over `{value, from, to}` with the units `C`, `F`
//! and `K`.
//!
//! Build it with `cargo xtask build-plugins` (or `cargo build -p temperature-converter`) and load
//! `libtemperature_converter.so` (`.dylib`, `.dll`) with `skillful-plugin-host` or
//! `skills list --plugins DIR`.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::Deserialize;
use skillful_plugin_abi::{ClassSkill, Resource, RiskTier, Script, SkillFrontmatter, export_skill};

const FORMULAS: &str = "\
# Temperature conversion formulas

| from | to | formula |
|---|---|---|
| Celsius (C) | Fahrenheit (F) | F = C × 9/5 + 32 |
| Fahrenheit (F) | Celsius (C) | C = (F − 32) × 5/9 |
| Celsius (C) | Kelvin (K) | K = C + 273.15 |
| Kelvin (K) | Celsius (C) | C = K − 273.15 |
| Fahrenheit (F) | Kelvin (K) | K = (F − 32) × 5/9 + 273.15 |
| Kelvin (K) | Fahrenheit (F) | F = (K − 273.15) × 9/5 + 32 |

Absolute zero is 0 K = −273.15 °C = −459.67 °F; no temperature is below it.
";

/// The skill: converts temperatures, and shows the formulas it uses.
#[derive(Debug, Default)]
pub struct TemperatureConverter;

/// The arguments of `convert-temperature`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConvertArgs {
    /// The temperature to convert.
    pub value: f64,
    /// The unit of `value`: `C` (Celsius), `F` (Fahrenheit) or `K` (Kelvin).
    #[schemars(extend("enum" = ["C", "F", "K"]))]
    pub from: String,
    /// The unit to convert to: `C`, `F` or `K`.
    #[schemars(extend("enum" = ["C", "F", "K"]))]
    pub to: String,
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
    /// Kelvin.
    Kelvin,
}

impl Unit {
    fn symbol(self) -> &'static str {
        match self {
            Unit::Celsius => "°C",
            Unit::Fahrenheit => "°F",
            Unit::Kelvin => "K",
        }
    }

    fn to_kelvin(self, value: f64) -> f64 {
        match self {
            Unit::Celsius => value + 273.15,
            Unit::Fahrenheit => (value - 32.0) * 5.0 / 9.0 + 273.15,
            Unit::Kelvin => value,
        }
    }

    fn kelvin_to(self, kelvin: f64) -> f64 {
        match self {
            Unit::Celsius => kelvin - 273.15,
            Unit::Fahrenheit => (kelvin - 273.15) * 9.0 / 5.0 + 32.0,
            Unit::Kelvin => kelvin,
        }
    }
}

impl FromStr for Unit {
    type Err = ConversionError;

    /// `C`, `F`, `K`, the unit's name or its symbol (`°C`), in any case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text
            .trim()
            .trim_start_matches('°')
            .to_ascii_lowercase()
            .as_str()
        {
            "c" | "celsius" => Ok(Unit::Celsius),
            "f" | "fahrenheit" => Ok(Unit::Fahrenheit),
            "k" | "kelvin" => Ok(Unit::Kelvin),
            _ => Err(ConversionError::UnknownUnit(text.to_owned())),
        }
    }
}

/// Why a conversion was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ConversionError {
    /// The unit is not one of `C`, `F`, `K`.
    UnknownUnit(String),
    /// The value is colder than absolute zero.
    BelowAbsoluteZero(f64, Unit),
    /// The value is not a finite number.
    NotFinite,
}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConversionError::UnknownUnit(unit) => {
                write!(
                    f,
                    "unknown unit '{unit}'; use C (Celsius), F (Fahrenheit) or K (Kelvin)"
                )
            }
            ConversionError::BelowAbsoluteZero(value, unit) => write!(
                f,
                "{} {} is below absolute zero (0 K); check the value and its unit",
                format_number(*value),
                unit.symbol()
            ),
            ConversionError::NotFinite => f.write_str("the value must be a finite number"),
        }
    }
}

impl std::error::Error for ConversionError {}

/// Converts `value` from one unit to another.
///
/// # Errors
/// A value that is not finite or is below absolute zero.
pub fn convert(value: f64, from: Unit, to: Unit) -> Result<f64, ConversionError> {
    if !value.is_finite() {
        return Err(ConversionError::NotFinite);
    }
    let kelvin = from.to_kelvin(value);
    if kelvin < 0.0 {
        return Err(ConversionError::BelowAbsoluteZero(value, from));
    }
    Ok(to.kelvin_to(kelvin))
}

/// `value` rounded to two decimals, without trailing zeros.
fn format_number(value: f64) -> String {
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

impl TemperatureConverter {
    fn convert_temperature(&self, args: ConvertArgs) -> Result<String, ConversionError> {
        let (from, to) = (args.from.parse::<Unit>()?, args.to.parse::<Unit>()?);
        let result = convert(args.value, from, to)?;
        Ok(format!(
            "{} {} = {} {}",
            format_number(args.value),
            from.symbol(),
            format_number(result),
            to.symbol()
        ))
    }
}

impl ClassSkill for TemperatureConverter {
    fn frontmatter(&self) -> SkillFrontmatter {
        let mut frontmatter = SkillFrontmatter::new(
            "temperature-converter",
            "Converts temperatures between Celsius, Fahrenheit and Kelvin. Use it whenever a \
             temperature must be given in another unit.",
        );
        frontmatter.license = Some("MIT OR Apache-2.0".to_owned());
        frontmatter
    }

    fn instructions(&self) -> String {
        "To convert a temperature, run `convert-temperature` with the value and its unit \
         (`from`) and the unit wanted (`to`), each `C`, `F` or `K`. Read \
         `temperature-conversion-formulas` when the user asks how a conversion works."
            .to_owned()
    }

    fn resources(&self) -> Vec<Resource<Self>> {
        vec![
            Resource::text("temperature-conversion-formulas", FORMULAS)
                .with_description("The formulas between Celsius, Fahrenheit and Kelvin."),
        ]
    }

    fn scripts(&self) -> Vec<Script<Self>> {
        vec![
            Script::new(
                "convert-temperature",
                "Converts a temperature from one unit (C, F, K) to another.",
                Self::convert_temperature,
            )
            .with_risk_tier(RiskTier::Read),
        ]
    }
}

export_skill!(TemperatureConverter);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_between_every_pair_of_units() {
        use Unit::{Celsius as C, Fahrenheit as F, Kelvin as K};
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(convert(100.0, C, F).unwrap(), 212.0));
        assert!(close(convert(212.0, F, C).unwrap(), 100.0));
        assert!(close(convert(0.0, C, K).unwrap(), 273.15));
        assert!(close(convert(273.15, K, C).unwrap(), 0.0));
        assert!(close(convert(0.0, K, F).unwrap(), -459.67));
        assert!(close(convert(-459.67, F, K).unwrap(), 0.0));
        assert!(close(convert(300.0, K, K).unwrap(), 300.0));
    }

    #[test]
    fn units_are_read_by_letter_name_or_symbol_in_any_case() {
        for (text, unit) in [
            ("C", Unit::Celsius),
            ("fahrenheit", Unit::Fahrenheit),
            ("°c", Unit::Celsius),
            (" k ", Unit::Kelvin),
        ] {
            assert_eq!(text.parse::<Unit>(), Ok(unit), "{text}");
        }
    }

    #[test]
    fn refuses_unknown_units_and_temperatures_below_absolute_zero() {
        assert_eq!(
            "R".parse::<Unit>(),
            Err(ConversionError::UnknownUnit("R".to_owned()))
        );
        assert_eq!(
            convert(-300.0, Unit::Celsius, Unit::Kelvin),
            Err(ConversionError::BelowAbsoluteZero(-300.0, Unit::Celsius))
        );
        assert_eq!(
            convert(f64::NAN, Unit::Celsius, Unit::Kelvin),
            Err(ConversionError::NotFinite)
        );
        assert_eq!(
            ConversionError::UnknownUnit("R".into()).to_string(),
            "unknown unit 'R'; use C (Celsius), F (Fahrenheit) or K (Kelvin)"
        );
    }

    #[test]
    fn the_script_writes_both_temperatures_with_their_symbols() {
        let args = ConvertArgs {
            value: 37.0,
            from: "C".into(),
            to: "F".into(),
        };
        assert_eq!(
            TemperatureConverter.convert_temperature(args).unwrap(),
            "37 °C = 98.6 °F"
        );
    }
}
