#[derive(Debug, Clone)]
pub struct Point<'a> { name: &'a str, x: f64 }
impl<'a> Point<'a> {
    fn new(name: &'a str) -> Self { let c = 'x'; println!("{} {}", name, c); Self { name, x: 1.0e3 } }
}
let r = r#"raw "str""#; // done
