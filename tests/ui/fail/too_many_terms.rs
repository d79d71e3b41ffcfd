// A kind holds at most 64 terms (each is one bit of a 64-bit mask); the
// 65th is a compile error naming the limit, never an overflow.
pub struct Server;

mcp_profiles::vocabulary! {
    server Server;

    #[surfaces]
    pub enum Surface {
        S0,
        S1,
        S2,
        S3,
        S4,
        S5,
        S6,
        S7,
        S8,
        S9,
        S10,
        S11,
        S12,
        S13,
        S14,
        S15,
        S16,
        S17,
        S18,
        S19,
        S20,
        S21,
        S22,
        S23,
        S24,
        S25,
        S26,
        S27,
        S28,
        S29,
        S30,
        S31,
        S32,
        S33,
        S34,
        S35,
        S36,
        S37,
        S38,
        S39,
        S40,
        S41,
        S42,
        S43,
        S44,
        S45,
        S46,
        S47,
        S48,
        S49,
        S50,
        S51,
        S52,
        S53,
        S54,
        S55,
        S56,
        S57,
        S58,
        S59,
        S60,
        S61,
        S62,
        S63,
        S64,
    }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

fn main() {}
